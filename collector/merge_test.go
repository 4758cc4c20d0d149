package collector

import (
	"slices"
	"testing"
	"time"
)

// TestMergeKeepsTheLaterRead: per cluster the later read wins, whichever publishes last; a status
// that replaces another keeps the other's first-seen times and, on a side it did not compare,
// the other's findings; a deletion found by a later read is not undone by an older one.
func TestMergeKeepsTheLaterRead(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	sweep, recheck := t0.Add(time.Minute), t0.Add(2*time.Minute)
	cluster := func(name string) Cluster { return Cluster{ID: "id-" + name, Name: name} }
	unmapped := Finding{Kind: KindUnmappedVM, VMID: "vm-9", VMName: "alpha-9", FirstSeen: sweep}
	nodeGone := Finding{Kind: KindNodeWithoutVM, VMName: "alpha-7", FirstSeen: sweep}

	// Published by a re-check: alpha's unmapped VM, with its node side compared.
	cur := []ClusterStatus{
		ClusterStatus{Cluster: cluster("alpha"), Checked: true, Nodes: NodesRead([]string{"alpha-1"}, nil), ReadAt: recheck}.With(unmapped, nodeGone),
		{Cluster: cluster("beta"), Checked: true, Nodes: NodesRead(nil, nil), ReadAt: t0},
	}
	// An older sweep read alpha without drift, and beta.
	older := Read{At: sweep, Sweep: true, Statuses: []ClusterStatus{
		{Cluster: cluster("alpha"), Checked: true, Nodes: NodesRead([]string{"alpha-1"}, nil), ReadAt: sweep},
		{Cluster: cluster("beta"), Checked: true, Nodes: NodesRead(nil, nil), ReadAt: sweep},
	}}
	deleted := map[string]time.Time{}
	got := Merge(cur, older, deleted)
	if len(got) != 2 || len(got[0].Findings()) != 2 || got[0].ReadAt != recheck || got[1].ReadAt != sweep {
		t.Fatalf("merged %+v: want alpha's later re-check and beta's sweep", got)
	}

	// A later re-check whose node listing failed: its VM side wins, its node side is cur's.
	later := Read{At: recheck.Add(time.Minute), Statuses: []ClusterStatus{
		ClusterStatus{Cluster: cluster("alpha"), Checked: true, Nodes: NodeList{Err: "timeout"}, ReadAt: recheck.Add(time.Minute)}.
			With(Finding{Kind: KindUnmappedVM, VMID: "vm-9", VMName: "alpha-9", FirstSeen: recheck.Add(time.Minute)}),
	}}
	got = Merge(cur, later, deleted)
	a := got[0]
	if vm := a.On(SideVM); len(vm) != 1 || !vm[0].FirstSeen.Equal(sweep) {
		t.Errorf("VM side %+v, want the unmapped VM first seen at %s", vm, sweep)
	}
	if n := a.On(SideNode); !slices.EqualFunc(n, []Finding{nodeGone}, func(x, y Finding) bool { return x.Key() == y.Key() }) {
		t.Errorf("node side %+v, want the published one, not compared by the later read", n)
	}
	if len(cur[0].On(SideVM)) != 1 || !cur[0].On(SideVM)[0].FirstSeen.Equal(sweep) {
		t.Error("Merge changed its input")
	}

	// A later re-check finds beta deleted; a sweep that read before does not bring it back.
	gone := Merge(cur, Read{At: recheck.Add(time.Minute), Gone: map[string]bool{"id-beta": true}}, deleted)
	if len(gone) != 1 || deleted["id-beta"].IsZero() {
		t.Fatalf("after the deletion %+v (deleted %v), want alpha only", gone, deleted)
	}
	if back := Merge(gone, older, deleted); len(back) != 1 || back[0].Cluster.Name != "alpha" {
		t.Errorf("the older sweep gives %+v, want alpha only", back)
	}
}
