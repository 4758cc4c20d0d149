package database

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestNetworkRulesWithoutGrant: an account granted as the documentation said before the network
// side (no SELECT on network_offerings, load_balancing_rules, load_balancer_vm_map and
// network_acl_item) reads every cluster, VM and address as before, with the statements of the
// network side left out, and every cluster's rules unread with an error naming the tables: the
// network side is not compared, so a rule that is gone makes no finding and none is cleared.
// CheckGrants names the four grants.
func TestNetworkRulesWithoutGrant(t *testing.T) {
	w := &cloudstacktest.World{}
	s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "k", Account: "alice", Control: 1, Workers: 1, Created: created})
	if _, err := w.RemoveRule(s.Rules[1].ID); err != nil { // gone: a finding, were the rules read
		t.Fatal(err)
	}
	_, d := load(t, w, mariadbtest.Current, Options{})
	missing := []string{"network_offerings", "load_balancing_rules", "load_balancer_vm_map", "network_acl_item"}
	dsn := grantedAccount(t, d, "_nr", missing...)
	src := newSource(t, Options{DSN: dsn, MaxOpenConns: 1, MaxIdleConns: 1})
	before := comSelect(t, src)
	inv := inventory(t, src)
	if n := comSelect(t, src) - before; n != statementsPerCycle-4 {
		t.Errorf("%d SELECTs without the grants, want %d", n, statementsPerCycle-4)
	}
	if len(inv.Clusters) != 1 || inv.Clusters[0].SSH.Host == "" || len(inv.Clusters[0].Mapped) != 2 {
		t.Fatalf("inventory without the grants: %+v", inv.Clusters)
	}
	r := inv.Clusters[0].Rules
	if r.Read() || !strings.Contains(r.Err, strings.Join(missing, ", ")) {
		t.Errorf("rules %+v; want unread, naming %v", r, missing)
	}
	for _, st := range collector.Evaluate(nil, inv, nil, created.Add(time.Hour), 0) {
		if st.NetworkEvaluated() || len(st.On(collector.SideNetwork)) > 0 {
			t.Errorf("network side compared without the grants: %+v", st.On(collector.SideNetwork))
		}
	}

	got, err := newSource(t, Options{DSN: dsn}).CheckGrants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, m := range got {
		tables = append(tables, m.Table)
		if !strings.Contains(m.Error(), "network_rule_missing") || !strings.Contains(m.Grant, "GRANT SELECT ON "+d.Name+"."+m.Table) {
			t.Errorf("missing grant %q", m.Error())
		}
	}
	if strings.Join(tables, ",") != strings.Join(missing, ",") {
		t.Errorf("CheckGrants names %v, want %v", tables, missing)
	}
}

// TestNetworkRulesStatementFails: a statement of the network side that fails (here the ACL
// items', whose table the account may read only the column action of: information_schema shows
// the table, the SELECT is refused) leaves every cluster's rules unread with the error, and the
// rest of the inventory read, as a rule list that fails does in the API source.
func TestNetworkRulesStatementFails(t *testing.T) {
	w := &cloudstacktest.World{}
	w.BuildCluster(cloudstacktest.ClusterSpec{Name: "k", Account: "alice", Control: 1, Workers: 1, Created: created})
	_, d := load(t, w, mariadbtest.Current, Options{})
	dsn := grantedAccount(t, d, "_ac", "network_acl_item")
	if _, err := d.Admin.Exec(fmt.Sprintf("GRANT SELECT (`action`) ON `%s`.`network_acl_item` TO '%s_ac'@'%%'", d.Name, d.Name)); err != nil {
		t.Fatal(err)
	}
	inv := inventory(t, newSource(t, Options{DSN: dsn}))
	if len(inv.Clusters) != 1 || inv.Clusters[0].SSH.Host == "" || len(inv.Clusters[0].Mapped) != 2 {
		t.Fatalf("inventory: %+v", inv.Clusters)
	}
	if r := inv.Clusters[0].Rules; r.Read() || !strings.HasPrefix(r.Err, "read network_acl_item: ") {
		t.Errorf("rules %+v; want unread with the ACL items' error", r)
	}
}
