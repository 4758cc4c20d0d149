package database

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// statementsPerCycle is one SELECT per table or join: the schema's columns, clusters, offerings,
// map rows with their VMs, listed VMs, source NAT addresses, port-forwarding rules to port 22,
// login users, NICs, and the network side's networks, rules, load-balanced VMs and ACL items.
const statementsPerCycle = 13

// TestStatementsDoNotGrowWithClusters counts the SELECTs of a cycle with MariaDB's own counter of
// the session's SELECT statements (Com_select; SHOW STATUS is not one of them). A pool of one
// connection makes the cycle run on the session the counter is read from.
func TestStatementsDoNotGrowWithClusters(t *testing.T) {
	counts := map[int]int64{}
	for _, n := range []int{10, 100} {
		w := &cloudstacktest.World{}
		for i := 0; i < n; i++ {
			w.BuildCluster(cloudstacktest.ClusterSpec{Name: fmt.Sprintf("k%03d", i), Account: "alice", Control: 1, Workers: 2, Shared: i%2 == 1, Created: created})
		}
		src, _ := load(t, w, mariadbtest.Current, Options{MaxOpenConns: 1, MaxIdleConns: 1})
		ctx := context.Background()

		// The session id is read outside the two counter reads, so its SELECTs are not counted.
		session := sessionID(t, src)
		before := comSelect(t, src)
		inv, err := src.Inventory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after := comSelect(t, src)
		if s := sessionID(t, src); s != session {
			t.Fatalf("the counter was read on session %d, then on %d", session, s)
		}
		if len(inv.Clusters) != n || len(inv.VMs) != 3*n {
			t.Fatalf("%d clusters: read %d clusters and %d VMs", n, len(inv.Clusters), len(inv.VMs))
		}
		counts[n] = after - before
		t.Logf("%d clusters: %d SELECT statements", n, counts[n])
	}
	if counts[10] != counts[100] || counts[10] != statementsPerCycle {
		t.Errorf("SELECTs per cycle: %d with 10 clusters, %d with 100; want %d for both", counts[10], counts[100], statementsPerCycle)
	}
}

// comSelect reads the session's count of SELECT statements.
func comSelect(t *testing.T, s *Source) (count int64) {
	t.Helper()
	var name string
	if err := s.db.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Com_select'").Scan(&name, &count); err != nil {
		t.Fatal(err)
	}
	return count
}

func sessionID(t *testing.T, s *Source) (id int64) {
	t.Helper()
	if err := s.db.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDocsStateTheStatementCount: the documents that state how many statements a cycle reads say
// the number TestStatementsDoNotGrowWithClusters measures, and no document says another, so that
// the figure has one home.
func TestDocsStateTheStatementCount(t *testing.T) {
	want := fmt.Sprintf("%d SELECT statements per cycle", statementsPerCycle)
	root := filepath.Join("..", "..", "..")
	for _, doc := range []string{"inventory-sources.md", "operations.md"} {
		data, err := os.ReadFile(filepath.Join(root, "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(strings.Fields(string(data)), " "); !strings.Contains(text, want) {
			t.Errorf("docs/%s does not say %q", doc, want)
		}
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`\b(\d+) SELECT statements\b`)
	for _, doc := range append(docs, filepath.Join(root, "README.md")) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range count.FindAllStringSubmatch(string(data), -1) {
			if m[1] != strconv.Itoa(statementsPerCycle) {
				t.Errorf("%s says %q; a cycle runs %d", filepath.Base(doc), m[0], statementsPerCycle)
			}
		}
	}
}

// TestDocsGrantWhatIsRead: the grants docs/inventory-sources.md gives are GrantScript's, line
// for line, so that the documented account reads exactly what the source reads.
func TestDocsGrantWhatIsRead(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "inventory-sources.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "GRANT ") || strings.HasPrefix(l, "REVOKE ") {
			got = append(got, strings.Join(strings.Fields(l), " "))
		}
	}
	if diff := cmp.Diff(GrantScript("cloud", "'cks_drift'@'exporter-host'"), got); diff != "" {
		t.Errorf("the grants of docs/inventory-sources.md (-GrantScript +docs):\n%s", diff)
	}
}
