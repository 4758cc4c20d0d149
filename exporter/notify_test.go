package exporter

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestRestartAnnouncesNothingTwice: an open finding is not announced again by a new process, and
// keeps its first-seen time.
func TestRestartAnnouncesNothingTwice(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the finding", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(2)
	firstSeen := e.firstSeen(t)
	e.stop()
	written := len(e.writes())

	e.start()
	e.nextCycles(3)
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("announced again after a restart: %q", w)
	}
	if got := e.firstSeen(t); got != firstSeen {
		t.Fatalf("first_seen %q after a restart, was %q", got, firstSeen)
	}
}

func (e *env) firstSeen(t *testing.T) string {
	t.Helper()
	r, _ := e.findingsReport()
	for _, c := range r.Clusters {
		for _, f := range c.Findings {
			return f.FirstSeen.Format(time.RFC3339Nano)
		}
	}
	t.Fatal("no finding in /findings")
	return ""
}

// TestFailingAlertIsRetried: generateAlert failing leaves the alert owed; the failure is counted
// every time, logged once; after recovery exactly one alert is stored and the annotation, which
// did go through, is not repeated.
func TestFailingAlertIsRetried(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	e.sim.CloudStack.SetFault("generateAlert", cloudstacktest.Fault{Status: 530})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= 3 })
	if a := e.storedAlerts(); len(a) != 0 {
		t.Fatalf("stored alerts while generateAlert fails: %q", a)
	}
	failLines := 0
	for _, l := range e.logs.since(0, slog.LevelWarn) {
		if strings.Contains(l.Msg, "Notifier call failed") {
			failLines++
		}
	}
	if failLines != 1 {
		t.Fatalf("the failing reason was logged %d times, want once", failLines)
	}
	e.sim.CloudStack.ClearFaults()
	e.waitFor("the alert", func() bool { return len(e.storedAlerts()) == 1 })
	e.nextCycles(3)
	if a := e.storedAlerts(); len(a) != 1 {
		t.Fatalf("stored alerts after recovery: %q", a)
	}
	if n := count(e.writes(), "addAnnotation [WARN]"); n != 1 {
		t.Fatalf("annotations: %d, want 1", n)
	}
	if n := e.metrics()[`cks_drift_notifications_total{kind="unmapped_vm"}`]; n != 1 {
		t.Fatalf("notifications_total = %v, want 1", n)
	}
}

// TestTwoFindingsInOneZoneBothStored: CloudStack drops an alert whose type and zone match an
// un-archived one; each finding has its own type, so both are stored.
func TestTwoFindingsInOneZoneBothStored(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "one"}, simulator.ClusterSpec{Name: "two"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[1]); err != nil {
			t.Fatal(err)
		}
	}
	e.waitFor("two stored alerts", func() bool { return len(e.storedAlerts()) == 2 })
	e.nextCycles(2)
	if a := e.storedAlerts(); len(a) != 2 || !strings.Contains(a[0], "cluster one") || !strings.Contains(a[1], "cluster two") {
		t.Fatalf("stored alerts: %q", a)
	}
}

// TestAlertCap: with max_alerts_per_cycle 2 and four new findings, four annotations, two alerts
// and one summary alert naming /findings and the two clusters not alerted (which two is the
// cap's turns, not the names). Each alert names its cluster by uuid and owner, as the inventory
// read it, and the summary counts by uuid with name and owner.
func TestAlertCap(t *testing.T) {
	specs := []simulator.ClusterSpec{{Name: "a"}, {Name: "b", Account: "bob"}, {Name: "c", Account: "bob"},
		{Name: "d", ProjectID: "a0000000-0000-4000-8000-0000000000d1", Project: "team"}}
	owners := []string{"account admin", "account bob", "account bob", "account PrjAcct-team-1, project team"} // the simulator names the project's account
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "  max_alerts_per_cycle: 2\n")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[1]); err != nil {
			t.Fatal(err)
		}
	}
	post(t, e.url+"/-/check")
	e.waitFor("the second cycle", func() bool { return e.cycles() == 2 })
	w := e.writes()
	if n := count(w, "addAnnotation [WARN]"); n != 4 {
		t.Fatalf("annotations: %d, want 4", n)
	}
	alerts := e.storedAlerts()
	if len(alerts) != 3 || count(alerts, "2 more new findings", "were not alerted one by one", "/findings") != 1 {
		t.Fatalf("stored alerts: %q", alerts)
	}
	for i, c := range cs {
		alerted := count(alerts, "Kubernetes cluster "+c.Name+" ", ". Cluster "+c.ID+" of "+owners[i]+". This is only reported")
		summed := count(alerts, "more new findings", c.ID+" ("+c.Name+", "+owners[i]+"): 1")
		if alerted+summed != 1 {
			t.Errorf("cluster %s: alerted %d times and in the summary %d times, want one of them: %q", c.Name, alerted, summed, alerts)
		}
	}
	if m := e.metrics(); m["cks_drift_notifications_capped_total"] != 2 {
		t.Fatalf("capped: %v", m["cks_drift_notifications_capped_total"])
	}
	// The capped findings are not alerted later either.
	post(t, e.url+"/-/check")
	e.waitFor("the third cycle", func() bool { return e.cycles() == 3 })
	if a := e.storedAlerts(); len(a) != 3 {
		t.Fatalf("stored alerts after another cycle: %q", a)
	}
}

// TestInventoryFailureKeepsFindings: when CloudStack cannot be read, /metrics keeps the previous
// findings with cks_drift_up 0, and nothing is resolved or announced.
func TestInventoryFailureKeepsFindings(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	// Cycles only on request, each after the world has changed: a cycle that read the clusters
	// before a change and the VMs after it would see a state the test never set up.
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.checkNow(2)
	if f := e.findings(); len(f) != 1 {
		t.Fatalf("findings: %q", f)
	}
	written := len(e.writes())
	for _, f := range []cloudstacktest.Fault{{Status: 530}, {RawBody: "<html>maintenance</html>"}, {CountDelta: 3}, {Status: 429, RetryAfter: "30"}} {
		e.sim.CloudStack.SetFault("listVirtualMachines", f)
		restore()
		e.checkNow(2)
		m := e.metrics()
		if m["cks_drift_up"] != 0 || len(e.findings()) != 1 || m["cks_drift_cycle_failures_total"] == 0 {
			t.Fatalf("fault %+v: up %v, findings %v, failures %v", f, m["cks_drift_up"], e.findings(), m["cks_drift_cycle_failures_total"])
		}
		if w := e.writes()[written:]; len(w) != 0 {
			t.Fatalf("fault %+v: writes %q", f, w)
		}
		e.sim.CloudStack.ClearFaults()
		restore, _ = e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
		e.checkNow(1)
		if up := e.metrics()["cks_drift_up"]; up != 1 {
			t.Fatalf("after fault %+v: cks_drift_up %v", f, up)
		}
	}
	if l := e.logs.since(0, slog.LevelError); len(l) == 0 || !strings.Contains(l[0].Msg, "Could not read the inventory") {
		t.Fatalf("no clear log line for the failing inventory: %+v", l)
	}
}
