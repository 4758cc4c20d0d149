package collector

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSidesGoThroughTheirDeclarations: a side added by its declaration alone is kept while it is
// not compared and clears when it is, in Evaluate and in the resolved history. The cluster side
// is compared only when the offerings were read; the network side only when its rules were read.
func TestSidesGoThroughTheirDeclarations(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	c := Cluster{ID: "k1", Name: "prod", State: "Running"}
	rule := Finding{Kind: "some_network_kind", Message: "a rule is gone", FirstSeen: now.Add(-time.Hour)}
	offering := Finding{Kind: "some_cluster_kind", Message: "an offering is gone", FirstSeen: now.Add(-time.Hour)}
	prev := ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil)}
	prev.Set(SideNetwork, []Finding{rule})
	prev.Set(SideCluster, []Finding{offering})
	nodes := map[string]NodeList{"k1": NodesRead(nil, nil)}

	unread := Evaluate([]ClusterStatus{prev}, Inventory{Clusters: []Cluster{c}}, nodes, now, time.Minute)[0]
	if diff := cmp.Diff([]Finding{offering}, unread.On(SideCluster)); diff != "" {
		t.Errorf("offerings not read: the cluster side changed (-want +got):\n%s", diff)
	}
	next := Evaluate([]ClusterStatus{prev}, Inventory{Clusters: []Cluster{c}, Offerings: Offerings{Read: true}}, nodes, now, time.Minute)[0]
	if diff := cmp.Diff([]Finding{rule}, next.On(SideNetwork)); diff != "" {
		t.Errorf("rules not read: the network side changed (-want +got):\n%s", diff)
	}
	if got := next.On(SideCluster); len(got) != 0 {
		t.Errorf("checked with the offerings read: the cluster side kept %v", got)
	}
	want := []Resolved{{ClusterID: "k1", ClusterName: "prod", Finding: offering, ResolvedAt: now}}
	if diff := cmp.Diff(want, RecordResolved(nil, []ClusterStatus{prev}, []ClusterStatus{next}, now)); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}

	c.Rules = &NetworkRules{}
	read := Evaluate([]ClusterStatus{prev}, Inventory{Clusters: []Cluster{c}}, nodes, now, time.Minute)[0]
	if got := read.On(SideNetwork); len(got) != 0 {
		t.Errorf("rules read: the network side kept %v", got)
	}

	c.State = "Scaling"
	skipped := Evaluate([]ClusterStatus{prev}, Inventory{Clusters: []Cluster{c}}, nodes, now, time.Minute)[0]
	if diff := cmp.Diff(prev.Findings(), skipped.Findings()); diff != "" {
		t.Errorf("skipped: findings changed (-want +got):\n%s", diff)
	}
	if got := RecordResolved(nil, []ClusterStatus{prev}, []ClusterStatus{skipped}, now); len(got) != 0 {
		t.Errorf("skipped: recorded as resolved %v", got)
	}
}

// TestSetNeverChangesACopy: copies of a status share their findings by side; Set, Add and With
// on one leave the others as they were.
func TestSetNeverChangesACopy(t *testing.T) {
	t.Parallel()
	a := ClusterStatus{}.With(Finding{Kind: KindUnmappedVM, VMID: "v1"})
	b := a
	b.Set(SideVM, nil)
	b.Add(Finding{Kind: KindNodeWithoutVM, VMName: "ghost"})
	c := a.With(Finding{Kind: KindUnmappedVM, VMID: "v2"})
	if got := a.Findings(); len(got) != 1 || got[0].VMID != "v1" {
		t.Errorf("the original changed: %v", got)
	}
	if got := b.Findings(); len(got) != 1 || got[0].Kind != KindNodeWithoutVM {
		t.Errorf("b: %v", got)
	}
	if got := c.On(SideVM); len(got) != 2 {
		t.Errorf("c: %v", got)
	}
}
