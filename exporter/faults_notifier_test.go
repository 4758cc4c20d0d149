package exporter

// Faults the exporter must survive (the fault matrix of docs/reliability.md): for each one it keeps
// serving /metrics from its last good snapshot, invents no finding, resolves none falsely, loses
// and doubles no announcement, and says what is wrong in one clear log line and a metric.

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestFaultAddAnnotationFails: CloudStack failing addAnnotation (530) leaves the annotation owed;
// the alert, a part of its own, goes through once; after recovery exactly one annotation is
// stored and the alert is not sent again.
func TestFaultAddAnnotationFails(t *testing.T) {
	t.Parallel()
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= 3 })
	if f := e.findings(); len(f) != 1 {
		t.Fatalf("findings: %v", f)
	}
	if a := e.annotations(); len(a) != 0 {
		t.Fatalf("annotations stored while addAnnotation fails: %q", a)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 || len(e.storedAlerts()) != 1 {
		t.Fatalf("generateAlert called %d times, stored %q; want once", n, e.storedAlerts())
	}
	fails := e.logged(0, slog.LevelWarn, msgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "addAnnotation" || !strings.Contains(fails[0].Attrs["err"], "530") {
		t.Fatalf("want one WARN line for addAnnotation, got %+v", fails)
	}

	mark := e.logs.mark()
	e.sim.CloudStack.ClearFaults()
	e.waitFor("the annotation", func() bool { return len(e.annotations()) == 1 })
	e.nextCycles(3)
	if a := e.annotations(); count(a, "[WARN] VM "+cs[0].VMs[1]) != 1 || len(a) != 1 {
		t.Fatalf("annotations after recovery: %q", a)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 || len(e.alertRows()) != 1 {
		t.Fatalf("the alert was sent again: %d generateAlert calls, rows %q", n, e.alertRows())
	}
	if l := e.logged(mark, slog.LevelInfo, "Notifier call works again"); len(l) != 1 || l[0].Attrs["op"] != "addAnnotation" {
		t.Fatalf("recovery lines: %+v", l)
	}
}

// TestFaultAlertStoredNothing: generateAlert answers success but CloudStack stores nothing,
// because an un-archived alert of the same type and zone exists (here one of every type the
// notifier may use, left by an earlier installation). The notifier notices with listAlerts,
// archives its type and sends once more: exactly one stored alert for the finding, the other
// alerts untouched.
func TestFaultAlertStoredNothing(t *testing.T) {
	t.Parallel()
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "  alert_type_min: 20000\n  alert_type_max: 20010\n")
	var zone string
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		for _, c := range w.Clusters {
			zone = c.ZoneID
		}
		for typ := 20000; typ < 20010; typ++ { // 20010 is the summary's
			w.Alerts = append(w.Alerts, &cloudstacktest.Alert{ID: fmt.Sprintf("old-%d", typ), Type: typ,
				Name: notifier.AlertName, Description: fmt.Sprintf("left over %d", typ), ZoneID: zone, Sent: time.Now().Add(-time.Hour)})
		}
	})
	e.start()
	e.nextCycles(1)
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the alert", func() bool { return count(e.storedAlerts(), "VM "+cs[0].VMs[1]) == 1 })
	e.nextCycles(3)
	stored := e.storedAlerts()
	if count(stored, "VM "+cs[0].VMs[1]) != 1 || count(stored, "left over") != 9 || len(stored) != 10 {
		t.Fatalf("stored alerts: %q; want the finding's once and 9 left-overs", stored)
	}
	if g, a := e.sim.CloudStack.CallCount("generateAlert"), e.sim.CloudStack.CallCount("archiveAlerts"); g != 2 || a != 1 {
		t.Fatalf("generateAlert %d, archiveAlerts %d; want 2 and 1", g, a)
	}
	m := e.metrics()
	if m[`cks_drift_notifications_total{kind="unmapped_vm"}`] != 1 || m["cks_drift_notification_failures_total"] != 0 {
		t.Fatalf("notification metrics: %v", matching(m, "notification"))
	}
	if n := count(e.annotations(), "[WARN]"); n != 1 {
		t.Fatalf("annotations: %d", n)
	}
}

// TestFaultAlertOutcomeUnknownThenCleared: generateAlert stored the alert but its job could not
// be queried (queryAsyncJobResult 530), and the look-ups fail too (listAlerts 530), so the alert
// is attempted with an unknown outcome when its finding clears. The alert may exist, so its type
// must be archived like any sent alert: no alert of a cleared finding stays open in CloudStack.
func TestFaultAlertOutcomeUnknownThenCleared(t *testing.T) {
	t.Parallel()
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	e.sim.CloudStack.SetFault("queryAsyncJobResult", cloudstacktest.Fault{Status: 530})
	e.sim.CloudStack.SetFault("listAlerts", cloudstacktest.Fault{Status: 530})
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("the alert stored with its outcome unknown", func() bool {
		return len(e.storedAlerts()) == 1 && e.metrics()["cks_drift_notification_failures_total"] >= 3
	})
	restore()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.sim.CloudStack.ClearFaults()
	e.nextCycles(3)
	if a := e.storedAlerts(); len(a) != 0 {
		t.Fatalf("the alert of the cleared finding is still open: %q", a)
	}
	e.oneEpisode(vmSideAgain)
}
