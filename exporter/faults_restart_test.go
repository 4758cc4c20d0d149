package exporter

// Faults the exporter must survive (the fault matrix of docs/reliability.md): for each one it keeps
// serving /metrics from its last good snapshot, invents no finding, resolves none falsely, loses
// and doubles no announcement, and says what is wrong in one clear log line and a metric.

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestFaultSIGTERMDuringCycle runs the real binary and sends SIGTERM while listVirtualMachines
// hangs: it exits at once with code 0, the state file is consistent, and the next run goes on
// where the first left off (the open finding is neither lost nor announced again).
func TestFaultSIGTERMDuringCycle(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.openVMFinding(cs[0])
	firstSeen := e.firstSeen(t)
	e.stop()
	written := len(e.writes())

	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: time.Hour})
	calls := e.sim.CloudStack.CallCount("listVirtualMachines")
	p := startProcess(t, bin, e.cfg)
	e.waitFor("listVirtualMachines to hang", func() bool { return e.sim.CloudStack.CallCount("listVirtualMachines") > calls })
	if code := p.terminate(t); code != 0 {
		t.Fatalf("exit code %d, want 0; output:\n%s", code, p.out.String())
	}
	if strings.Contains(p.out.String(), "level=ERROR") || !strings.Contains(p.out.String(), "Check cycle stopped by shutdown") {
		t.Fatalf("the shutdown is not logged as such:\n%s", p.out.String())
	}
	if a := onlyAnnouncement(t, checkStateFile(t, e.statePath())); !a.announced() {
		t.Fatalf("the announcement in the state file: %+v", a)
	}

	e.sim.CloudStack.ClearFaults()
	e.start()
	e.nextCycles(2)
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("announced again after the SIGTERM: %q", w)
	}
	if got := e.firstSeen(t); got != firstSeen {
		t.Fatalf("first_seen %s, was %s", got, firstSeen)
	}
}

// TestFaultSIGTERMDuringNotification runs the real binary and sends SIGTERM while generateAlert's
// async job is pending (cloudstack-go sleeps between polls). The alert was already stored by
// CloudStack; the state file says it was attempted, so the next run looks it up instead of
// sending it again: one annotation and one alert in the end.
func TestFaultSIGTERMDuringNotification(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.sim.CloudStack.SetJobPolls(30)
	p := startProcess(t, bin, e.cfg)
	e.waitFor("generateAlert's job to be polled", func() bool { return e.sim.CloudStack.CallCount("queryAsyncJobResult") >= 1 })
	if code := p.terminate(t); code != 0 {
		t.Fatalf("exit code %d, want 0; output:\n%s", code, p.out.String())
	}
	a := onlyAnnouncement(t, checkStateFile(t, e.statePath()))
	if !a.Annotation.Done || a.Alert.Done || a.Alert.Attempted.IsZero() {
		t.Fatalf("want the annotation done and the alert attempted, not done: %+v", a)
	}

	e.sim.CloudStack.SetJobPolls(0)
	e.start()
	e.waitFor("the first cycle of the new process", func() bool { return e.cycles() >= 1 })
	ann, rows := e.annotations(), e.alertRows()
	if count(ann, "[WARN] VM "+cs[0].VMs[1]) != 1 || len(ann) != 1 || count(rows, "VM "+cs[0].VMs[1]) != 1 || len(rows) != 1 {
		t.Fatalf("annotations %q, alerts %q; want one each", ann, rows)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 {
		t.Fatalf("generateAlert called %d times, want 1 (the attempted alert is looked up, not resent)", n)
	}
	if n := e.sim.CloudStack.CallCount("listAlerts"); n == 0 {
		t.Fatal("the attempted alert was not looked up")
	}
	e.stop()
	if a := onlyAnnouncement(t, checkStateFile(t, e.statePath())); !a.announced() {
		t.Fatalf("after the restart the announcement is not complete: %+v", a)
	}
}

// TestFaultLookupFailsAfterUnknownOutcome: an annotation reached CloudStack but the exporter never
// recorded it (the state file became unwritable during the call, and the process stopped), so the
// next process finds it attempted with an unknown outcome. Its look-up (listAnnotations) fails:
// the annotation must stay owed, not be sent blindly a second time; once the look-up works it is
// found and counted as done.
func TestFaultLookupFailsAfterUnknownOutcome(t *testing.T) {
	t.Parallel()
	e, cs, path := startImmutable(t, 1)

	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Delay: time.Second})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("addAnnotation under way", func() bool { return e.sim.CloudStack.CallCount("addAnnotation") == 1 })
	chattr(t, "+i", path) // the attempt is on disk; its outcome will not be
	e.waitFor("the annotation and the alert stored, the outcome not saved", func() bool {
		return len(e.annotations()) == 1 && len(e.storedAlerts()) == 1 && e.metrics()["cks_drift_notification_failures_total"] >= 1
	})
	e.stop()
	chattr(t, "-i", path)
	if a := onlyAnnouncement(t, checkStateFile(t, path)); a.Annotation.Done || a.Annotation.Attempted.IsZero() {
		t.Fatalf("want the annotation attempted with an unknown outcome in the state file: %+v", a)
	}

	e.sim.CloudStack.ClearFaults()
	e.sim.CloudStack.SetFault("listAnnotations", cloudstacktest.Fault{Status: 530})
	mark := e.logs.mark()
	e.start()
	e.nextCycles(3)
	if n := count(e.annotations(), "[WARN]"); n != 1 {
		t.Fatalf("%d [WARN] annotations: sent again without knowing whether the first got through", n)
	}
	fails := e.logged(mark, slog.LevelWarn, msgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "look up an earlier attempt" {
		t.Fatalf("want one WARN line for the look-up, got %+v", fails)
	}

	e.sim.CloudStack.ClearFaults()
	e.nextCycles(3)
	e.stop()
	if n := count(e.annotations(), "[WARN]"); n != 1 {
		t.Fatalf("%d [WARN] annotations", n)
	}
	if a := onlyAnnouncement(t, checkStateFile(t, path)); !a.announced() {
		t.Fatalf("the annotation was not found by the look-up: %+v", a)
	}
}
