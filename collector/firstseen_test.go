package collector

import (
	"testing"
	"time"
)

// TestFirstSeen: a finding keeps the last snapshot's first-seen time; only one that the last
// snapshot does not have is looked up in memory (a restart), and one memory does not know either
// is first seen now. The operation side does the same, a stuck finding of an earlier state
// counting as one the last snapshot does not have.
func TestFirstSeen(t *testing.T) {
	t.Parallel()
	inSnapshot, inMemory := now.Add(-3*time.Hour), now.Add(-7*time.Hour)
	remembered := func(key string) FirstSeenMemory {
		return func(clusterID string, side Side, k string) (time.Time, bool) {
			return inMemory, clusterID == "k1" && k == key
		}
	}
	unmapped := Finding{Kind: KindUnmappedVM, VMID: "w2", VMName: "test-node-1a1c6ebf01d"}
	stuck := Finding{Kind: KindStuckInOperation}
	for _, tc := range []struct {
		name   string
		prev   []Finding
		memory FirstSeenMemory
		want   time.Time
	}{
		{"in the last snapshot and remembered: the snapshot's", []Finding{{Kind: unmapped.Kind, VMID: unmapped.VMID, FirstSeen: inSnapshot}},
			remembered(unmapped.Key()), inSnapshot},
		{"not in the last snapshot, remembered: memory's time", nil, remembered(unmapped.Key()), inMemory},
		{"in the last snapshot without a time: memory's", []Finding{{Kind: unmapped.Kind, VMID: unmapped.VMID}}, remembered(unmapped.Key()), inMemory},
		{"remembered for another finding: now", nil, remembered("unmapped_vm:w1"), now},
		{"no memory: now", nil, nil, now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := baseWorld()
			unmapRow(&w, "w2")
			inv := Inventory{Clusters: []Cluster{w.cluster}, VMs: w.vms}
			prev := []ClusterStatus{ClusterStatus{Cluster: w.cluster, Checked: true, Nodes: w.nodes}.With(tc.prev...)}
			got := EvaluateShard(prev, inv, map[string]NodeList{"k1": w.nodes}, now, grace, Shard{}, tc.memory)
			if vm := got[0].On(SideVM); len(vm) != 1 || !vm[0].FirstSeen.Equal(tc.want) {
				t.Fatalf("VM side %+v, want %s first seen at %s", vm, unmapped.Key(), tc.want)
			}
		})
	}
	scaling := Cluster{ID: "k1", Name: "prod", State: "Scaling"}
	for _, tc := range []struct {
		name      string
		prevState string
		memory    FirstSeenMemory
		want      time.Time
	}{
		{"stuck in the same state: the last snapshot's time", "Scaling", remembered(stuck.Key()), inSnapshot},
		{"stuck in another state before: memory's", "Upgrading", remembered(stuck.Key()), inMemory},
		{"stuck in another state before, not remembered: now", "Upgrading", nil, now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := scaling
			p.State = tc.prevState
			prev := []ClusterStatus{ClusterStatus{Cluster: p, StateSince: now.Add(-5 * time.Hour)}.With(Finding{Kind: stuck.Kind, FirstSeen: inSnapshot})}
			statuses := []ClusterStatus{{Cluster: scaling}}
			memory := func(string, string) (time.Time, bool) { return now.Add(-5 * time.Hour), true }
			MarkStates(statuses, prev, memory, tc.memory, now, time.Hour)
			if op := statuses[0].On(SideOperation); len(op) != 1 || !op[0].FirstSeen.Equal(tc.want) {
				t.Fatalf("operation side %+v, want stuck_in_operation first seen at %s", op, tc.want)
			}
		})
	}
}
