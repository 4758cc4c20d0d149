package exporter

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestSettingOffAndOn is scenario 6: with the setting off nothing is read, dialled or notified;
// turned on by a reload, a cycle starts at once (the interval is an hour) and reports.
func TestSettingOffAndOn(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	test := cs[0]
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })

	e.writeConfig("  enabled: false\n  interval: 1h\n", "")
	if code := post(t, e.url+"/-/reload"); code != http.StatusOK {
		t.Fatalf("reload: %d", code)
	}
	e.waitFor("check_enabled 0", func() bool { return e.metrics()["cks_drift_check_enabled"] == 0 })
	calls, commands := len(e.sim.CloudStack.Calls()), e.sim.Node(test.ID).Commands()
	if _, err := e.sim.DeleteMapRow(test.ID, test.VMs[2]); err != nil {
		t.Fatal(err)
	}
	if code := post(t, e.url+"/-/check"); code != http.StatusAccepted {
		t.Fatalf("/-/check: %d", code)
	}
	// Nothing may happen; give the loop a bounded window to misbehave in.
	time.Sleep(300 * time.Millisecond)
	if got := len(e.sim.CloudStack.Calls()); got != calls {
		t.Fatalf("CloudStack called while checking is off: %v", e.sim.CloudStack.Calls()[calls:])
	}
	if got := e.sim.Node(test.ID).Commands(); got != commands {
		t.Fatal("kubectl run while checking is off")
	}
	if c := e.cycles(); c != 1 {
		t.Fatalf("cycles while off: %v", c)
	}
	if r := e.metrics()["cks_drift_config_last_reload_successful"]; r != 1 {
		t.Fatalf("config_last_reload_successful = %v", r)
	}

	e.writeConfig("  enabled: true\n  interval: 1h\n", "")
	if code := post(t, e.url+"/-/reload"); code != http.StatusOK {
		t.Fatalf("reload: %d", code)
	}
	e.waitFor("a cycle at once", func() bool { return e.cycles() == 2 })
	if f := e.findings(); !slices.Equal(f, []string{"test unmapped_vm " + test.VMs[2]}) {
		t.Fatalf("findings: %v", f)
	}
	if n := count(e.writes(), "addAnnotation [WARN]"); n != 1 {
		t.Fatalf("annotations: %d", n)
	}
}

// TestBadReloadKeepsConfiguration: a broken file is refused, the running configuration stays and
// the reload metric says so.
func TestBadReloadKeepsConfiguration(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	e.writeConfig("  interval: -5m\n  bogus: 1\n", "")
	if code := post(t, e.url+"/-/reload"); code != http.StatusInternalServerError {
		t.Fatalf("reload of a bad file: %d, want 500", code)
	}
	m := e.metrics()
	if m["cks_drift_config_last_reload_successful"] != 0 || m[`cks_drift_config_reloads_total{result="failure"}`] != 1 {
		t.Fatalf("reload metrics: %v", matching(m, "reload"))
	}
	if m["cks_drift_check_enabled"] != 1 || m["cks_drift_up"] != 1 || m["cks_drift_check_interval_seconds"] != 3600 {
		t.Fatalf("the running configuration (interval: 1h) was dropped: %v", matching(m, "enabled|up|interval"))
	}
	// The running configuration still works.
	if code := post(t, e.url+"/-/check"); code != http.StatusAccepted {
		t.Fatalf("/-/check: %d", code)
	}
	e.waitFor("a cycle with the old configuration", func() bool { return e.cycles() == 2 })
}

// TestClusterInOperation is scenario 7: a cluster in Scaling is skipped with its findings and
// notification state untouched, no kubectl runs on it, and a stray VM is reported once it runs
// again.
func TestClusterInOperation(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "other"})
	test := cs[0]
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	restore, err := e.sim.DeleteMapRow(test.ID, test.VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("unmapped_vm", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(2)
	written := len(e.writes())

	if err := e.sim.SetClusterState(test.ID, "Scaling"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the cluster to be skipped", func() bool {
		return e.metrics()[`cks_drift_cluster_checked{cluster_id="`+test.ID+`",cluster_name="test"}`] == 0
	})
	restore() // undone during the operation: not seen until the cluster is checked again
	stray, _, err := e.sim.AddStrayVM(test.ID, time.Now().Add(-20*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	commands := e.sim.Node(test.ID).Commands()
	e.nextCycles(3)
	if got := e.sim.Node(test.ID).Commands(); got != commands {
		t.Fatal("kubectl run on a cluster in Scaling")
	}
	if f := e.findings(); !slices.Equal(f, []string{"test unmapped_vm " + test.VMs[1]}) {
		t.Fatalf("findings of the skipped cluster changed: %v", f)
	}
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("writes during the operation: %q", w)
	}

	if err := e.sim.SetClusterState(test.ID, "Running"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the stray VM", func() bool { return slices.Equal(e.findings(), []string{"test unmapped_vm " + stray}) })
	e.nextCycles(2)
	w := e.writes()[written:]
	if count(w, "addAnnotation [WARN] VM "+stray) != 1 || count(w, "generateAlert VM "+stray) != 1 {
		t.Fatalf("writes after the operation: %q", w)
	}
	// One finding cleared while another opened: no resolution, the old alert archived.
	if count(w, "[INFO]") != 0 || count(w, "archiveAlerts") != 1 {
		t.Fatalf("writes after the operation: %q", w)
	}
}
