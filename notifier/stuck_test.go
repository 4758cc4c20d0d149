package notifier_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestStuckInOperation: a cluster stuck in Scaling, skipped for the drift check, is announced
// once (a [WARN] annotation and an alert); its frozen VM-side findings are neither cleared nor
// announced again; since when it has been in the state is in the state file; when it leaves the
// state the [INFO] annotation names the state, and the clock is forgotten.
func TestStuckInOperation(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	frozen := collector.Finding{Kind: collector.KindUnmappedVM, VMID: "v1", VMName: "prod-node-x", Message: "frozen unmapped VM", FirstSeen: time.Now()}
	e.notify(e.status(frozen))
	since := e.clock().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	stuck := func(state string) []collector.ClusterStatus {
		st := e.status(frozen)
		st[0].Checked, st[0].Cluster.State, st[0].StateSince = false, state, since
		st[0].Set(collector.SideVM, nil) // a skipped cluster's VM side: whatever it holds is not looked at
		st[0].Set(collector.SideOperation, []collector.Finding{{Kind: collector.KindStuckInOperation,
			Message: collector.StuckMessage(e.cluster.Name, state, since, time.Hour), FirstSeen: e.clock()}})
		return st
	}
	e.notify(stuck("Scaling"))
	e.notify(stuck("Scaling"))
	warn := "[WARN] " + collector.StuckMessage("prod", "Scaling", since, time.Hour)
	if got := e.annotations(); len(got) != 2 || got[1] != warn {
		t.Fatalf("annotations %q, want the frozen finding's and then %q once", got, warn)
	}
	if n := len(e.alerts()); n != 2 {
		t.Errorf("%d alerts, want 2 (the frozen finding and the stuck cluster)", n)
	}
	if !strings.Contains(e.alerts()[1].Description, "has been in state Scaling since "+since.Format(time.RFC3339)+", longer than 1h.") {
		t.Errorf("alert %q", e.alerts()[1].Description)
	}
	if got := e.saved(t).States[e.cluster.ID]; got.State != "Scaling" || !got.Since.Equal(since) {
		t.Errorf("state file: %+v, want Scaling since %s", got, since)
	}
	if got, ok := e.n.StateSince(e.cluster.ID, "Scaling"); !ok || !got.Equal(since) {
		t.Errorf("StateSince(Scaling) = %s, %t", got, ok)
	}
	if _, ok := e.n.StateSince(e.cluster.ID, "Upgrading"); ok {
		t.Error("StateSince(Upgrading) remembered for a cluster in Scaling")
	}
	if _, known := e.saved(t).Clusters[e.cluster.ID].Sides[collector.SideVM].Findings[frozen.Key()]; !known {
		t.Error("the frozen VM-side finding was dropped while the cluster was skipped")
	}

	back := e.status(frozen)
	back[0].Cluster.State = "Running"
	e.notify(back)
	info := "[INFO] " + notifier.StuckResolution("prod", "Scaling")
	if got := e.annotations(); !slices.Contains(got, info) || len(got) != 3 {
		t.Errorf("annotations %q, want %q added", got, info)
	}
	if info != "[INFO] Kubernetes cluster prod is no longer stuck in state Scaling" {
		t.Errorf("resolution text %q", info)
	}
	if _, ok := e.saved(t).States[e.cluster.ID]; ok {
		t.Error("a Running cluster's state clock is still in the state file")
	}
	if !strings.Contains(e.logs.String(), "Kubernetes cluster prod is no longer stuck in state Scaling") {
		t.Errorf("no INFO line: %s", e.logs.String())
	}
}

// TestStuckTurnedOff: a stuck finding that goes while the cluster stays in its state
// (check.stuck_after raised or 0) is dropped without a resolution, which would not be true.
func TestStuckTurnedOff(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	since := e.clock().Add(-2 * time.Hour)
	st := e.status()
	st[0].Checked, st[0].Cluster.State, st[0].StateSince = false, "Upgrading", since
	st[0].Set(collector.SideOperation, []collector.Finding{{Kind: collector.KindStuckInOperation, Message: collector.StuckMessage("prod", "Upgrading", since, time.Hour)}})
	e.notify(st)
	st[0].Set(collector.SideOperation, nil)
	e.notify(st)
	for _, a := range e.annotations() {
		if strings.HasPrefix(a, "[INFO]") {
			t.Errorf("resolution %q while the cluster is still Upgrading", a)
		}
	}
	if len(e.annotations()) != 1 {
		t.Errorf("annotations %q, want the one [WARN]", e.annotations())
	}
	if len(e.saved(t).Clusters) != 0 {
		t.Errorf("state still holds %+v", e.saved(t).Clusters)
	}
}

// TestAnnouncedAfterRestart: what the notifier holds announced of a cluster comes back with its
// VM, which the state file keeps.
func TestAnnouncedAfterRestart(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	unmapped := collector.Finding{Kind: collector.KindUnmappedVM, VMID: "v1", VMName: "prod-node-x", Message: "unmapped", FirstSeen: e.clock().UTC()}
	ghost := collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: "ghost", Message: "ghost", FirstSeen: e.clock().UTC()}
	e.notify(e.status(unmapped, ghost))
	announced := e.n.Announced(e.cluster.ID)
	vm, node := announced[collector.SideVM], announced[collector.SideNode]
	if len(vm) != 1 || vm[0].Key() != unmapped.Key() || vm[0].VMName != "prod-node-x" || len(node) != 1 || node[0].Key() != ghost.Key() {
		t.Fatalf("Announced = %+v, %+v", vm, node)
	}
	saved := e.saved(t)
	a := saved.Clusters[e.cluster.ID].Sides[collector.SideVM].Findings[unmapped.Key()]
	if a.VMID != "v1" || a.VMName != "prod-node-x" {
		t.Errorf("state file: %+v, want the VM kept", a)
	}
}
