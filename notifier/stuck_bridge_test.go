package notifier

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// In alertmanager mode a stuck cluster is announced while CKSClusterStuckInOperation fires
// (labels kind=stuck_in_operation, empty vm_id and vm_name: the key is the kind), and "no longer
// stuck" waits for Alertmanager's resolution after the cluster left the state.
func TestFiringOnlyStuck(t *testing.T) {
	stuck := collector.Finding{Kind: collector.KindStuckInOperation, Message: "Kubernetes cluster test has been in state Scaling since ...", FirstSeen: t0}
	skipped := func(state string, op ...collector.Finding) []collector.ClusterStatus {
		st := status(false, false, nil, nil)
		st.Cluster.State = state
		st.Set(collector.SideOperation, op)
		return []collector.ClusterStatus{st}
	}
	var s state
	if ev := s.update(s.firingOnly(skipped("Scaling", stuck))); len(ev) != 0 {
		t.Fatalf("events %v before Alertmanager reports the alert", kinds(ev))
	}
	s.Firing = map[string]firingAlert{"fp": {StartsAt: t0, ClusterID: "k1", Key: stuck.Key()}}
	if ev := kinds(s.update(s.firingOnly(skipped("Scaling", stuck)))); !slices.Equal(ev, []string{"new stuck_in_operation"}) {
		t.Fatalf("events %v, want the stuck cluster announced", ev)
	}
	running := status(true, true, nil, nil)
	running.Cluster.State = "Running"
	if ev := s.update(s.firingOnly([]collector.ClusterStatus{running})); len(ev) != 0 {
		t.Fatalf("events %v while the alert still fires", kinds(ev))
	}
	delete(s.Firing, "fp")
	ev := s.update(s.firingOnly([]collector.ClusterStatus{running}))
	if len(ev) != 1 || !ev[0].Resolved || ev[0].Side != collector.SideOperation || ev[0].State != "Scaling" {
		t.Fatalf("events %+v, want the operation side resolved, naming Scaling", ev)
	}
}
