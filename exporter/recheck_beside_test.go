package exporter

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// gates stop the exporter's goroutines at handoffs (loop.go), each armed gate once, so that a
// test forces one interleaving of a sweep and a re-check instead of waiting for it.
type gates struct {
	mu    sync.Mutex
	armed map[handoff]*gate
}

// gate is one armed handoff: reached is closed when a goroutine gets there, which then waits
// until the test opens it.
type gate struct {
	t       *testing.T
	point   handoff
	reached chan struct{}
	release chan struct{}
}

// gates installs the hook of the gates on the running exporter.
func (e *env) gates() *gates {
	g := &gates{armed: make(map[handoff]*gate)}
	hook := func(h handoff) {
		g.mu.Lock()
		gt := g.armed[h]
		delete(g.armed, h)
		g.mu.Unlock()
		if gt != nil {
			close(gt.reached)
			<-gt.release
		}
	}
	e.exp.hook.Store(&hook)
	e.t.Cleanup(func() { // never leave a goroutine stopped: the exporter must stop
		g.mu.Lock()
		defer g.mu.Unlock()
		clear(g.armed)
	})
	return g
}

// arm stops the next goroutine that reaches point.
func (g *gates) arm(t *testing.T, point handoff) *gate {
	gt := &gate{t: t, point: point, reached: make(chan struct{}), release: make(chan struct{})}
	g.mu.Lock()
	g.armed[point] = gt
	g.mu.Unlock()
	t.Cleanup(gt.open)
	return gt
}

// wait waits until a goroutine stopped at the gate; the deadline is a backstop.
func (gt *gate) wait() {
	gt.t.Helper()
	select {
	case <-gt.reached:
	case <-time.After(20 * time.Second):
		gt.t.Fatalf("nothing reached %s", gt.point)
	}
}

// open lets the goroutine stopped at the gate go on (once).
func (gt *gate) open() {
	select {
	case <-gt.release:
	default:
		close(gt.release)
	}
}

// stopSweep asks for a cycle and stops it where it has read and compared the clusters, before it
// publishes; the returned gate lets it go on.
func (e *env) stopSweep() *gate {
	e.t.Helper()
	swept := e.gates().arm(e.t, handoffSwept)
	if code := post(e.t, e.url+"/-/check"); code != http.StatusAccepted {
		e.t.Fatalf("/-/check: %d", code)
	}
	swept.wait()
	return swept
}

// deliver delivers ev with CloudStack's webhook.
func (e *env) deliver(ev cloudstacktest.ActionEvent) {
	e.t.Helper()
	if d := e.hook().Deliver(context.Background(), ev); !d.Success {
		e.t.Fatalf("delivery answered %v", d.Statuses)
	}
}

// unchanged checks that the findings are want and that nothing was announced but announced,
// after what (what changed nothing).
func (e *env) unchanged(want, announced []string, after string) {
	e.t.Helper()
	if got := e.findings(); !slices.Equal(got, want) {
		e.t.Errorf("findings %v after %s, want %v", got, after, want)
	}
	if w := e.writes(); !slices.Equal(w, announced) {
		e.t.Errorf("announcements %q after %s, want only %q", w, after, announced)
	}
	e.servedAsEncodedAfresh(after)
}

// servedAsEncodedAfresh checks that the check metrics /metrics serves, whose chunks the
// exposition keeps from snapshot to snapshot while their clusters' read times are the same
// (expositionmembers.go), are those of the snapshot they were made from encoded afresh: a status
// merged into a later snapshot must be the one published with its read time.
func (e *env) servedAsEncodedAfresh(after string) {
	e.t.Helper()
	served := e.exp.exposition.checks.Load()
	text, _, err := encodeChecks(collector.NewMetrics(func() *collector.Snapshot { return served.snapshot }).Chunks(chunkClusters))
	if err != nil {
		e.t.Fatal(err)
	}
	if got, want := gunzip(e.t, served.text), gunzip(e.t, text); got != want {
		e.t.Errorf("/metrics after %s is not its snapshot's metrics encoded afresh:\n%s\nwant\n%s", after, got, want)
	}
}

// rechecked returns how many clusters re-checks have published.
func (e *env) rechecked() float64 { return e.metrics()["cks_drift_rechecks_total"] }

// TestRecheckBesideTheSweep: an event that arrives while a sweep runs is re-checked at once,
// beside the sweep, and the sweep, whose read is older, does not undo it: the re-check's finding
// is kept when the sweep publishes, announced once, with no "matches again".
func TestRecheckBesideTheSweep(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	swept := e.stopSweep() // the sweep read alpha unchanged and has not published

	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.deliver(e.vmEvent("VM.STOP", alpha.VMs[2]))
	e.waitFor("the re-check beside the sweep", func() bool { return e.rechecked() == 1 })
	want := []string{"alpha unmapped_vm " + alpha.VMs[2]}
	if got := e.findings(); !slices.Equal(got, want) {
		t.Fatalf("findings %v after the re-check, want %v", got, want)
	}
	announced := e.writes()
	if len(announced) != 2 {
		t.Fatalf("announcements %q, want the finding's annotation and alert", announced)
	}
	if c := e.cycles(); c != 1 {
		t.Fatalf("%v cycles while the sweep is stopped, want 1", c)
	}

	swept.open()
	e.waitFor("the sweep", func() bool { return e.cycles() == 2 })
	e.unchanged(want, announced, "the older sweep published")
	e.checkNow(1)
	e.unchanged(want, announced, "the next sweep")
}

// TestRecheckOlderThanTheSweep: a re-check that read before a sweep started and publishes after
// the sweep leaves the sweep's status: the sweep's finding stays, announced once, never resolved
// by the re-check's older read.
func TestRecheckOlderThanTheSweep(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	g := e.gates()
	rechecked := g.arm(t, handoffRechecked)
	e.deliver(e.vmEvent("VM.STOP", alpha.VMs[2]))
	rechecked.wait() // the re-check read alpha unchanged and has not published

	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.checkNow(1) // a sweep beside the stopped re-check
	want := []string{"alpha unmapped_vm " + alpha.VMs[2]}
	if got := e.findings(); !slices.Equal(got, want) {
		t.Fatalf("findings %v after the sweep, want %v", got, want)
	}
	announced := e.writes()
	if len(announced) != 2 {
		t.Fatalf("announcements %q, want the finding's annotation and alert", announced)
	}

	rechecked.open()
	e.waitFor("the older re-check", func() bool { return e.rechecked() == 1 })
	e.unchanged(want, announced, "the older re-check published")
	if r := e.exp.lastSnapshot().Resolved; len(r) != 0 {
		t.Errorf("resolved %v, want none", r)
	}
}

// TestResolutionBesideTheSweep: a resolution a re-check finds while a sweep runs is not undone by
// the sweep, which read the drift before it was repaired: no second announcement of the finding,
// the resolution recorded once.
func TestResolutionBesideTheSweep(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	restore, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2])
	if err != nil {
		t.Fatal(err)
	}
	e.writeConfig("  interval: 1h\n", "")
	e.setConfig(e.config() + eventsSection)
	e.start()
	e.waitFor("the first cycle's announcement", func() bool { return e.cycles() >= 1 && len(e.writes()) == 2 })

	swept := e.stopSweep() // the sweep read the drift and has not published

	restore()
	e.deliver(e.vmEvent("VM.START", alpha.VMs[2]))
	e.waitFor("the re-check beside the sweep", func() bool { return e.rechecked() == 1 })
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings %v after the re-check found the repair", f)
	}
	announced := e.writes()
	if len(announced) <= 2 {
		t.Fatalf("announcements %q, want the resolution after the finding's", announced)
	}

	swept.open()
	e.waitFor("the sweep", func() bool { return e.cycles() == 2 })
	e.unchanged(nil, announced, "the older sweep published")
	e.checkNow(1)
	e.unchanged(nil, announced, "the next sweep")
	if r := e.exp.lastSnapshot().Resolved; len(r) != 1 {
		t.Errorf("resolved %v, want the one finding once", r)
	}
}

// TestFailedSweepKeepsTheRecheck: a sweep that cannot read the inventory keeps the statuses a
// re-check published while it ran: its finding is neither dropped nor announced again.
func TestFailedSweepKeepsTheRecheck(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530})
	swept := e.stopSweep() // it failed to read the inventory and has not published
	e.sim.CloudStack.ClearFaults()

	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.deliver(e.vmEvent("VM.STOP", alpha.VMs[2]))
	e.waitFor("the re-check beside the sweep", func() bool { return e.rechecked() == 1 })
	want := []string{"alpha unmapped_vm " + alpha.VMs[2]}
	announced := e.writes()
	if got := e.findings(); !slices.Equal(got, want) || len(announced) != 2 {
		t.Fatalf("findings %v and announcements %q after the re-check, want %v announced once", got, announced, want)
	}

	swept.open()
	e.waitFor("the failed sweep", func() bool { return e.metrics()["cks_drift_cycle_failures_total"] == 1 })
	e.unchanged(want, announced, "the failed sweep published")
}

// TestDeletedClusterNotBroughtBack: a cluster that a re-check found deleted while a sweep ran is
// not brought back by the sweep, which read it before its deletion.
func TestDeletedClusterNotBroughtBack(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"}, simulator.ClusterSpec{Name: "beta"})
	alpha := cs[0]
	swept := e.stopSweep() // the sweep read alpha and has not published

	ev := e.vmEvent("VM.STOP", alpha.VMs[2])
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		w.Clusters = slices.DeleteFunc(w.Clusters, func(c *cloudstacktest.Cluster) bool { return c.ID == alpha.ID })
	})
	e.deliver(ev)
	e.waitFor("the re-check that finds alpha deleted", func() bool { return !slices.Contains(e.clusterNames(), "alpha") })

	swept.open()
	e.waitFor("the sweep", func() bool { return e.cycles() == 2 })
	if got := e.clusterNames(); !slices.Equal(got, []string{"beta"}) {
		t.Errorf("clusters %v after the older sweep published, want beta only", got)
	}
}

// clusterNames returns the names of the clusters of the published snapshot.
func (e *env) clusterNames() []string {
	var out []string
	for _, s := range e.exp.lastSnapshot().Clusters {
		out = append(out, s.Cluster.Name)
	}
	return out
}

// TestRecheckAfterCheckingIsOff: a reload that switches checking off while a re-check runs still
// publishes "disabled", and the re-check, publishing after it, neither switches it back on nor
// announces what it found.
func TestRecheckAfterCheckingIsOff(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	rechecked := e.gates().arm(t, handoffRechecked)
	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.deliver(e.vmEvent("VM.STOP", alpha.VMs[2]))
	rechecked.wait() // the re-check found the drift and has not published

	e.editConfig("  interval: 1h\n", "  enabled: false\n  interval: 1h\n")
	e.postReload()
	e.waitFor("check_enabled 0", func() bool { return e.metrics()["cks_drift_check_enabled"] == 0 })
	rechecked.open()
	e.waitFor("the re-check's end", func() bool {
		select {
		case <-e.exp.stopped:
			return true
		default:
		}
		e.exp.owner.mu.Lock()
		defer e.exp.owner.mu.Unlock()
		return len(e.exp.owner.running) == 0
	})
	if m := e.metrics(); m["cks_drift_check_enabled"] != 0 {
		t.Errorf("check_enabled %v after the re-check, want 0", m["cks_drift_check_enabled"])
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("announcements %q while checking is off", w)
	}
}
