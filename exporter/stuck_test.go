package exporter

import (
	"log/slog"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestStuckInOperation: "other" has been Upgrading for two hours when the exporter starts
// (CloudStack's event says since when), "test" enters Scaling while the exporter runs, with an
// unmapped VM. Each is stuck_in_operation past check.stuck_after, announced once (WARN line,
// [WARN] annotation, alert), since when on /metrics and /findings; the unmapped VM stays as it
// was, neither cleared nor announced again. A restart keeps the times (from the state file, with
// CloudStack's events gone) and the unmapped VM of the skipped cluster, and announces nothing
// again. Back in Running: the [INFO]
// annotation, the finding gone, the unmapped VM compared again and not announced again.
func TestStuckInOperation(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "other"})
	test, other := cs[0], cs[1]
	upgrading := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	if err := e.sim.StartOperation(other.ID, "Upgrading", upgrading); err != nil {
		t.Fatal(err)
	}
	e.writeConfig("  interval: 100ms\n  stuck_after: 2s\n", "")
	e.start()
	if _, err := e.sim.DeleteMapRow(test.ID, test.VMs[1]); err != nil {
		t.Fatal(err)
	}
	unmapped := "test unmapped_vm " + test.VMs[1]
	e.waitFor("unmapped_vm and the stuck upgrade", func() bool { return slices.Equal(e.findings(), []string{"other stuck_in_operation ", unmapped}) })
	checkSince(t, e, other.ID, "other", upgrading, true)
	written, mark := len(e.writes()), e.logs.mark()

	scaling := time.Now().UTC().Truncate(time.Second)
	if err := e.sim.StartOperation(test.ID, "Scaling", scaling); err != nil {
		t.Fatal(err)
	}
	stuck := "test stuck_in_operation "
	e.waitFor("test stuck_in_operation", func() bool { return slices.Contains(e.findings(), stuck) })
	e.nextCycles(3)
	message := "Kubernetes cluster test has been in state Scaling since " + scaling.Format(time.RFC3339) + ", longer than 2s"
	w := e.writes()[written:]
	if len(w) != 2 || count(w, "addAnnotation "+notifier.WarnAnnotation(message)) != 1 || count(w, "generateAlert "+message+".") != 1 {
		t.Fatalf("writes of the stuck cluster: %q", w)
	}
	if warns := linesWith(e.logs.since(mark, slog.LevelWarn), message); warns != 1 {
		t.Errorf("%d WARN lines %q, want 1", warns, message)
	}
	if f := e.findings(); !slices.Equal(f, []string{"other stuck_in_operation ", stuck, unmapped}) {
		t.Fatalf("findings: %v", f)
	}
	checkSince(t, e, test.ID, "test", scaling, true)

	e.stop()
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Events = nil }) // purged
	written = len(e.writes())
	e.start()
	e.nextCycles(3)
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("announced again after a restart: %q", w)
	}
	checkSince(t, e, test.ID, "test", scaling, true)
	checkSince(t, e, other.ID, "other", upgrading, true)
	if f := e.findings(); !slices.Equal(f, []string{"other stuck_in_operation ", stuck, unmapped}) {
		t.Fatalf("findings after a restart: %v, want the skipped cluster's unmapped VM still there", f)
	}

	if err := e.sim.SetClusterState(test.ID, "Running"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the finding to go", func() bool { return !slices.Contains(e.findings(), stuck) })
	e.nextCycles(2)
	w = e.writes()[written:]
	if info := "addAnnotation " + notifier.InfoAnnotation(notifier.StuckResolution("test", "Scaling")); len(w) != 2 || count(w, info) != 1 || count(w, "archiveAlerts") != 1 {
		t.Fatalf("writes after the cluster left Scaling: %q, want %q and the alert archived", w, info)
	}
	if f := e.findings(); !slices.Equal(f, []string{"other stuck_in_operation ", unmapped}) {
		t.Fatalf("findings once Running: %v", f)
	}
	checkSince(t, e, test.ID, "test", time.Time{}, false)
}

// checkSince checks since when /metrics and /findings say the cluster has been in its state and
// whether it is stuck; a zero since: a moment ago, not stuck.
func checkSince(t *testing.T, e *env, clusterID, name string, since time.Time, stuck bool) {
	t.Helper()
	key := `cks_drift_cluster_state_since_timestamp_seconds{cluster_id="` + clusterID + `",cluster_name="` + name + `"}`
	got := e.metrics()[key]
	if !since.IsZero() && got != float64(since.Unix()) || since.IsZero() && time.Since(time.Unix(int64(got), 0)) > time.Minute {
		t.Errorf("%s = %s, want %d", key, strconv.FormatFloat(got, 'f', -1, 64), since.Unix())
	}
	r, _ := e.findingsReport()
	var c *report.ClusterReport
	for i := range r.Clusters {
		if r.Clusters[i].ID == clusterID {
			c = &r.Clusters[i]
		}
	}
	if c == nil || c.StateSince == nil || !since.IsZero() && !c.StateSince.Equal(since) || c.Checked == stuck {
		t.Fatalf("/findings: %+v, want state_since %s, checked %t", c, since, !stuck)
	}
	n := 0
	for _, f := range c.Findings {
		if f.Kind == collector.KindStuckInOperation && f.VMID == "" && f.VMName == "" {
			n++
		}
	}
	if stuck != (n == 1) {
		t.Errorf("/findings: %d stuck_in_operation findings, want stuck %t", n, stuck)
	}
}

func linesWith(lines []logLine, msg string) int {
	n := 0
	for _, l := range lines {
		if l.Msg == msg {
			n++
		}
	}
	return n
}

// TestStuckAfterOnReload: check.stuck_after is read on every reload. 0 turns the finding off
// without a resolution (the cluster is still in its state, so "no longer stuck" would not be
// true), and its alert is archived; back at 1h the finding is new and announced once again.
func TestStuckAfterOnReload(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	since := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	if err := e.sim.StartOperation(cs[0].ID, "Starting", since); err != nil {
		t.Fatal(err)
	}
	e.writeConfig("  interval: 100ms\n  stuck_after: 1h\n", "")
	e.start()
	stuck := []string{"test stuck_in_operation "}
	e.waitFor("stuck_in_operation", func() bool { return slices.Equal(e.findings(), stuck) })
	e.nextCycles(2)
	announced := "addAnnotation " + notifier.WarnAnnotation("Kubernetes cluster test has been in state Starting since "+since.Format(time.RFC3339)+", longer than 1h")
	if w := e.writes(); count(w, announced) != 1 {
		t.Fatalf("writes: %q", w)
	}
	written := len(e.writes())

	e.editConfig("  stuck_after: 1h\n", "  stuck_after: 0s\n")
	e.postReload()
	e.waitFor("the finding to go", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	if w := e.writes()[written:]; count(w, "[INFO]") != 0 || count(w, "archiveAlerts") != 1 {
		t.Fatalf("writes once stuck_after is 0: %q, want only the alert archived", w)
	}
	key := `cks_drift_cluster_state_since_timestamp_seconds{cluster_id="` + cs[0].ID + `",cluster_name="test"}`
	if got := e.metrics()[key]; got != float64(since.Unix()) { // not stuck, still timed from the event
		t.Errorf("%s = %v, want %d", key, got, since.Unix())
	}
	written = len(e.writes())

	e.editConfig("  stuck_after: 0s\n", "  stuck_after: 1h\n")
	e.postReload()
	e.waitFor("stuck_in_operation again", func() bool { return slices.Equal(e.findings(), stuck) })
	e.nextCycles(2)
	if w := e.writes()[written:]; count(w, announced) != 1 {
		t.Fatalf("writes once stuck_after is 1h again: %q", w)
	}
}
