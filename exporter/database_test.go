package exporter

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/database"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestMain stops the MariaDB server the database tests start (mariadbtest.Start).
func TestMain(m *testing.M) { os.Exit(mariadbtest.Main(m)) }

// e2ePassword is the exporter's database password: distinctive, with the characters a DSN parser
// trips on, so that a leak into the log or /findings cannot be missed.
const e2ePassword = "E2e-db/p4ss@w0rd:x"

// exporterAccount creates the exporter's own database account with the documented grants
// (database.GrantScript: SELECT on exactly the tables the database source reads, the VM details
// table under both of its names), and returns its DSN and what drops it.
func exporterAccount(t *testing.T, d *mariadbtest.Database) (dsn string, grant, drop func()) {
	t.Helper()
	cfg, err := mysql.ParseDSN(d.DSN())
	if err != nil {
		t.Fatal(err)
	}
	user := d.Name // unique per database, so parallel test binaries never share it
	grant = func() {
		t.Helper()
		stmts := append([]string{fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", user, e2ePassword)},
			database.GrantScript(d.Name, fmt.Sprintf("'%s'@'%%'", user))...)
		for i, q := range stmts {
			if _, err := d.Admin.Exec(q); err != nil && i == 0 {
				t.Skipf("the test server does not let the administrator create an account (%v): %s", err, q)
			} else if err != nil {
				t.Fatalf("a documented grant fails: %v: %s", err, q)
			}
		}
	}
	drop = func() {
		t.Helper()
		if _, err := d.Admin.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)); err != nil {
			t.Fatal(err)
		}
		// Dropping an account leaves its sessions open: end them, as a restarted server would.
		rows, err := d.Admin.Query("SELECT id FROM information_schema.processlist WHERE user = ?", user)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			_, _ = d.Admin.Exec(fmt.Sprintf("KILL CONNECTION %d", id)) // it may have ended by itself
		}
	}
	grant()
	t.Cleanup(func() { _, _ = d.Admin.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	cfg.User, cfg.Passwd, cfg.DBName = user, e2ePassword, d.Name
	return cfg.FormatDSN(), grant, drop
}

// assertNoPassword checks that the password is nowhere in the log, /findings or /metrics.
func (e *env) assertNoPassword(password string) {
	e.t.Helper()
	e.logs.mu.Lock()
	for _, l := range e.logs.lines {
		text := l.Msg
		for k, v := range l.Attrs {
			text += " " + k + "=" + v
		}
		if strings.Contains(text, password) {
			e.t.Errorf("the log holds the database password: %s", text)
		}
	}
	e.logs.mu.Unlock()
	if _, body := e.findingsReport(); strings.Contains(body, password) {
		e.t.Errorf("/findings holds the database password:\n%s", body)
	}
	for k := range e.metrics() {
		if strings.Contains(k, password) {
			e.t.Errorf("/metrics holds the database password: %s", k)
		}
	}
}

// TestScenario3FromTheDatabase is scenario 3 of docs/scenarios.md in full, with inventory.source
// database: map rows for an expunged VM and for VM id 999999, which the API cannot show. The
// exporter reads clusters, map rows and VMs from MariaDB as an account that may only SELECT the
// tables it reads, runs kubectl over SSH on the control node the database names (the cluster's
// source NAT address and the public port of the port-forwarding rule to port 22 of its first
// control VM), and announces through the CloudStack API. The database is also lost for a while.
func TestScenario3FromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2}, simulator.ClusterSpec{Name: "other", Workers: 1})

	d, grant, drop := e.startOnDatabase(db, "  interval: 100ms\n")
	for _, c := range cs {
		var address string
		var public, private int
		err := d.Admin.QueryRow(`SELECT ip.public_ip_address, f.start_port, pf.dest_port_start FROM port_forwarding_rules pf
			JOIN firewall_rules f ON f.id = pf.id JOIN user_ip_address ip ON ip.id = f.ip_address_id
			JOIN vm_instance v ON v.id = pf.instance_id WHERE v.name = ?`, c.Control).Scan(&address, &public, &private)
		if err != nil || public != e.sim.Node(c.ID).Port() || private != 22 || address != "127.0.0.1" {
			t.Fatalf("cluster %s: no rule from 127.0.0.1:%d to port 22 of %s in the database (%v)", c.Name, e.sim.Node(c.ID).Port(), c.Control, err)
		}
	}

	// 1: baseline over three cycles: both clusters checked, kubectl reached on the control node
	// the database names, no finding, no write, nothing logged at info or above. The inventory
	// comes from the database alone: no list call reaches the API.
	e.nextCycles(3)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %v", f)
	}
	m := e.metrics()
	if got := matching(m, `^cks_drift_(cluster_checked|kubectl_reachable)\{`); len(got) != 4 {
		t.Fatalf("checked and reachable series: %v", got)
	}
	for k, v := range matching(m, `^cks_drift_(cluster_checked|kubectl_reachable|up)\b`) {
		if v != 1 {
			t.Errorf("%s = %v, want 1", k, v)
		}
	}
	for _, c := range cs {
		if n := e.sim.Node(c.ID).Commands(); n < 3 {
			t.Errorf("cluster %s: %d kubectl runs on its control node over 3 cycles", c.Name, n)
		}
	}
	for _, c := range e.sim.CloudStack.Calls() {
		if strings.HasPrefix(c.Command, "list") {
			t.Errorf("the exporter called %s with inventory.source database", c.Command)
		}
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("baseline writes: %v", w)
	}
	if l := withoutFirstPins(e.logs.since(0, slog.LevelInfo)); len(l) != 0 {
		t.Fatalf("logged at info or above while everything matches: %+v", l)
	}

	// 3: two rows added to test's map, in the cloud's model, which the database is loaded with
	// again. One names the VM of a node removed from "other" earlier, expunged (removed set,
	// state Expunging); the other VM id 999999, which no VM has.
	goneCreated := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Second)
	gone := struct {
		id         int64
		uuid, name string
	}{489, "5dad63d3-0000-4000-8000-000000000489", fmt.Sprintf("other-node-%x", goneCreated.UnixMilli())}
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		c := w.ClusterByName("test")
		w.AddVM(cloudstacktest.VM{InternalID: gone.id, ID: gone.uuid, Name: gone.name, State: "Expunging", Created: goneCreated, Removed: true}.Of(c))
		c.VMMap = append(c.VMMap, gone.id, 999999)
	})
	e.reload(d)
	expunged := "VM " + gone.name + " (" + gone.uuid + ") is one of the VMs of Kubernetes cluster test in CloudStack, but has been or is being expunged"
	missing := "VM with ID 999999 is one of the VMs of Kubernetes cluster test in CloudStack, but does not exist"
	want := []string{"test mapped_vm_expunged " + gone.name, "test mapped_vm_missing "}
	e.waitFor("mapped_vm_expunged and mapped_vm_missing", func() bool { return slices.Equal(e.findings(), want) })
	e.nextCycles(3)
	written := e.writes()
	if count(written, "addAnnotation [WARN] "+expunged) != 1 || count(written, "addAnnotation [WARN] "+missing) != 1 ||
		count(written, "generateAlert "+expunged, "This is only reported, nothing was changed.") != 1 ||
		count(written, "generateAlert "+missing, "This is only reported, nothing was changed.") != 1 || len(written) != 4 {
		t.Fatalf("writes after the rows were inserted (want one annotation and one alert each, once): %q", written)
	}
	if a := e.storedAlerts(); len(a) != 2 || count(a, expunged) != 1 || count(a, missing) != 1 {
		t.Fatalf("stored alerts: %q", a)
	}
	warns := e.logs.since(0, slog.LevelWarn)
	if len(warns) != 2 || warns[0].Attrs["kind"] == warns[1].Attrs["kind"] {
		t.Fatalf("WARN lines: %+v", warns)
	}
	if got := matching(e.metrics(), `^cks_drift_finding\{.*kind="mapped_vm_missing",vm_id="999999",vm_name=""`); len(got) != 1 {
		t.Errorf("mapped_vm_missing series with vm_id 999999: %v", got)
	}
	if got := matching(e.metrics(), `^cks_drift_finding\{.*kind="mapped_vm_expunged",vm_id="`+gone.uuid+`",vm_name="`+gone.name+`"`); len(got) != 1 {
		t.Errorf("mapped_vm_expunged series with the VM's uuid and name: %v", got)
	}

	// The database is lost: the exporter's account is dropped and its sessions killed. Cycles
	// fail (cks_drift_up 0), the findings are kept and nothing is resolved or announced; the
	// password is in no log line and not on /findings. A cycle that began before the drop may
	// read the maps and then be refused the networks: it succeeds without the network side and
	// says so in a WARN, which is true, so the log is watched from the first failed cycle on.
	failures := e.metrics()["cks_drift_cycle_failures_total"]
	drop()
	e.waitFor("cks_drift_up 0", func() bool { return e.metrics()["cks_drift_up"] == 0 })
	mark := e.logs.mark()
	e.nextCycles(3)
	m = e.metrics()
	if m["cks_drift_up"] != 0 || m["cks_drift_cycle_failures_total"] < failures+3 {
		t.Errorf("database lost: cks_drift_up %v, %v failed cycles (before: %v)", m["cks_drift_up"], m["cks_drift_cycle_failures_total"], failures)
	}
	if f := e.findings(); !slices.Equal(f, want) {
		t.Errorf("findings while the database is lost: %v, want them kept: %v", f, want)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		t.Errorf("writes while the database is lost: %q", w[len(written):])
	}
	if a := e.storedAlerts(); len(a) != 2 {
		t.Errorf("stored alerts while the database is lost: %q", a)
	}
	report, _ := e.findingsReport()
	if report.Cycle.Success || !strings.HasPrefix(report.Cycle.Error, "database: ") || report.FindingCount() != 2 {
		t.Errorf("/findings while the database is lost: success %v, error %q, %d findings", report.Cycle.Success, report.Cycle.Error, report.FindingCount())
	}
	t.Logf("cycle error: %s", report.Cycle.Error)
	for _, l := range e.logs.since(mark, slog.LevelInfo) {
		if l.Level != slog.LevelError || !strings.Contains(l.Msg, "Could not read the inventory") {
			t.Errorf("logged while the database is lost: %+v", l)
		}
	}
	e.assertNoPassword(e2ePassword)

	// The account is back: cycles succeed again, nothing is announced again.
	grant()
	e.waitFor("cks_drift_up 1", func() bool { return e.metrics()["cks_drift_up"] == 1 })
	e.nextCycles(2)
	if f := e.findings(); !slices.Equal(f, want) {
		t.Errorf("findings after the database came back: %v, want %v", f, want)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		t.Errorf("re-announced after the database came back: %q", w[len(written):])
	}

	// The rows removed: one INFO annotation, the alerts archived, no new alert.
	mark = e.logs.mark()
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		c := w.ClusterByName("test")
		c.VMMap = c.VMMap[:len(c.VMMap)-2]
	})
	e.reload(d)
	e.waitFor("the VM side to match again", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	after := e.writes()[len(written):]
	if count(after, "addAnnotation [INFO] The VM map of Kubernetes cluster test matches the VMs of the cluster in CloudStack again") != 1 ||
		count(after, "generateAlert") != 0 || count(after, "archiveAlerts")+1 != len(after) {
		t.Fatalf("writes after the rows were removed: %q", after)
	}
	if a := e.storedAlerts(); len(a) != 0 {
		t.Fatalf("the cleared findings' alerts are not archived: %q", a)
	}
	if l := e.logs.since(mark, slog.LevelInfo); len(l) != 1 || l[0].Level != slog.LevelInfo {
		t.Fatalf("log after the rows were removed: %+v", l)
	}
	e.assertNoPassword(e2ePassword)
	for _, c := range e.sim.CloudStack.Calls() {
		if slices.Contains([]string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"}, c.Command) {
			t.Errorf("the exporter read its inventory through the API (%s) with inventory.source database", c.Command)
		}
	}
}

// reload loads d with the simulated cloud as it is now.
func (e *env) reload(d *mariadbtest.Database) {
	e.t.Helper()
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) { d.LoadWorld(e.t, w) })
}

// startOnDatabase renders the simulated cloud into a new database of db, gives the exporter its own account there,
// writes the configuration with check and the database as the inventory source (the notifier
// still writes through the simulator's API) and starts the exporter. It returns the database and
// what grants and drops the exporter's account.
func (e *env) startOnDatabase(db *mariadbtest.DB, check string) (d *mariadbtest.Database, grant, drop func()) {
	e.t.Helper()
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) { d = db.NewDatabaseOf(e.t, w) })
	dsn, grant, drop := exporterAccount(e.t, d)
	e.t.Setenv("CKS_DRIFT_E2E_DSN", dsn)
	e.writeConfig(check, "")
	f, err := os.OpenFile(e.cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := f.WriteString("inventory:\n  source: database\ndatabase:\n  dsn: ${CKS_DRIFT_E2E_DSN}\n  query_timeout: 5s\n"); err != nil {
		e.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.start()
	return d, grant, drop
}
