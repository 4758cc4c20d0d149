package exporter

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// upgradeEnv is a cloud at 4.20 read from its database with the documented grants: "test" with a
// map row for VM id 999999, announced, and "old", whose control node lets in only "core" as its
// controlNodeLoginUser detail says (a cluster created before 4.16.1), so that its node side is
// read only while the exporter reads the VM details table.
func upgradeEnv(t *testing.T) (*env, *mariadbtest.Database, []string) {
	t.Helper()
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2}, simulator.ClusterSpec{Name: "old", Workers: 1, LoginUser: "core"})
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		w.Release = "4.20"
		c := w.ClusterByName("test")
		c.VMMap = append(c.VMMap, 999999)
	})
	d, _, _ := e.startOnDatabase(db, "  interval: 100ms\n")
	if d.Version != mariadbtest.V4_20 || d.Version.DetailsTable() != "user_vm_details" {
		t.Fatalf("the database of a 4.20 cloud has the schema of %s", d.Version)
	}
	e.waitFor("mapped_vm_missing", func() bool { return slices.Equal(e.findings(), []string{"test mapped_vm_missing "}) })
	e.nextCycles(2)
	written := e.writes()
	if len(written) != 2 || count(written, "addAnnotation [WARN] VM with ID 999999") != 1 || count(written, "generateAlert VM with ID 999999") != 1 {
		t.Fatalf("writes at 4.20 (want one annotation and one alert): %q", written)
	}
	e.assertReadsBoth()
	return e, d, written
}

// assertReadsBoth checks that the last cycle succeeded and reached kubectl on both clusters, "old"
// as the user its VM details name.
func (e *env) assertReadsBoth() {
	e.t.Helper()
	m := e.metrics()
	if m["cks_drift_up"] != 1 {
		e.t.Errorf("cks_drift_up %v, want 1", m["cks_drift_up"])
	}
	for k, v := range matching(m, `^cks_drift_kubectl_reachable\{`) {
		if v != 1 {
			e.t.Errorf("%s = %v, want 1", k, v)
		}
	}
	if got := matching(m, `^cks_drift_kubectl_reachable\{`); len(got) != 2 {
		e.t.Errorf("kubectl reachable series: %v, want one per cluster", got)
	}
}

// TestCloudStackUpgradeFrom420To421: the cloud is upgraded under a running exporter. The database
// moves from 4.20's shape to 4.21's as CloudStack's upgrade script moves it (the map's new columns,
// user_vm_details renamed vm_instance_details), the grants staying as MariaDB keeps them (under
// the old name, and the documented one on the new name given before it existed). The next cycles
// read as before: the finding is kept and not announced again, kubectl is still reached as
// "core" on old's control node, cks_drift_up stays 1, nothing is logged; a map row added after
// the upgrade is found and announced once. Cycles run every 100 ms during the upgrade: one that
// reads the VM details table's name from information_schema just before the rename and the table
// just after fails (a cycle in the middle of an upgrade may), so the log is watched from the
// second cycle after the upgrade on.
func TestCloudStackUpgradeFrom420To421(t *testing.T) {
	e, d, written := upgradeEnv(t)
	d.Upgrade(t)
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Release = "4.21" })
	e.nextCycles(2)
	mark := e.logs.mark()
	e.nextCycles(3)
	e.assertReadsBoth()
	if f := e.findings(); !slices.Equal(f, []string{"test mapped_vm_missing "}) {
		t.Errorf("findings after the upgrade: %v, want the one from before", f)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		t.Errorf("written after the upgrade: %q", w[len(written):])
	}
	if l := e.logs.since(mark, slog.LevelInfo); len(l) != 0 {
		t.Errorf("logged across the upgrade: %+v", l)
	}

	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		c := w.ClusterByName("old")
		c.VMMap = append(c.VMMap, 999998)
	})
	e.reload(d) // 4.21's columns now
	e.waitFor("a finding after the upgrade", func() bool { return len(e.findings()) == 2 })
	e.nextCycles(2)
	after := e.writes()[len(written):]
	if len(after) != 2 || count(after, "addAnnotation [WARN] VM with ID 999998") != 1 || count(after, "generateAlert VM with ID 999998") != 1 {
		t.Errorf("writes for the finding after the upgrade (want one annotation and one alert): %q", after)
	}
	e.assertReadsBoth()
}

// TestCloudStackUpgradeWithTheOldGrant: an account granted the VM details table under its old
// name only, as the documentation said before 4.21, stops reading at the upgrade: cycles fail
// (cks_drift_up 0) with an error that names vm_instance_details and the statements that grant it,
// the finding is kept and nothing is announced or resolved. Once the statements are run, cycles
// read again and nothing is announced twice.
func TestCloudStackUpgradeWithTheOldGrant(t *testing.T) {
	e, d, written := upgradeEnv(t)
	grantee := fmt.Sprintf("'%s'@'%%'", d.Name)
	if _, err := d.Admin.Exec(fmt.Sprintf("REVOKE SELECT ON `%s`.`vm_instance_details` FROM %s", d.Name, grantee)); err != nil {
		t.Fatal(err)
	}
	e.nextCycles(2)
	e.assertReadsBoth() // 4.20 reads user_vm_details: the missing grant does not matter yet

	d.Upgrade(t)
	e.waitFor("cks_drift_up 0", func() bool { return e.metrics()["cks_drift_up"] == 0 })
	e.nextCycles(2)
	fix := fmt.Sprintf("GRANT SELECT, CREATE ON %s.vm_instance_details TO %s; REVOKE CREATE ON %s.vm_instance_details FROM %s;", d.Name, grantee, d.Name, grantee)
	report, _ := e.findingsReport()
	if report.Cycle.Success || !strings.Contains(report.Cycle.Error, "may not read vm_instance_details") || !strings.Contains(report.Cycle.Error, fix) {
		t.Errorf("cycle error after the upgrade: %q; want it to name vm_instance_details and %q", report.Cycle.Error, fix)
	}
	if f := e.findings(); !slices.Equal(f, []string{"test mapped_vm_missing "}) {
		t.Errorf("findings while the cycles fail: %v, want them kept", f)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		t.Errorf("written while the cycles fail: %q", w[len(written):])
	}

	for _, stmt := range strings.SplitAfter(fix, ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			if _, err := d.Admin.Exec(stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
	e.waitFor("cks_drift_up 1", func() bool { return e.metrics()["cks_drift_up"] == 1 })
	e.nextCycles(2)
	e.assertReadsBoth()
	if w := e.writes(); !slices.Equal(w, written) {
		t.Errorf("written once the grant is back: %q", w[len(written):])
	}
}
