package exporter

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The clusters whose control node timed out in the last cycle, or answered slowly, are in the
// slow lane, every other checkable one in the answering lane, and skipped clusters in neither.
// (A node that answered just before the timeout stayed in the answering lane.)
func TestCheckLanesSetLastCyclesTimeoutsApart(t *testing.T) {
	inv := collector.Inventory{Clusters: []collector.Cluster{
		{ID: "a", State: "Running"}, {ID: "b", State: "Running"}, {ID: "c", State: "Scaling"}, {ID: "d", State: "Alert"}, {ID: "e", State: "Running"},
	}}
	slowly := collector.NodesRead([]string{"e-node"}, nil)
	slowly.Slow = true
	prev := []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: "d"}, Nodes: collector.NodeList{Err: "timeout"}},
		{Cluster: collector.Cluster{ID: "b"}, Nodes: collector.NodeList{Err: "auth"}},
		{Cluster: collector.Cluster{ID: "e"}, Nodes: slowly},
	}
	l := checkLanes(inv, collector.Shard{}, prev, collector.NewTurns())
	var answering, slow []string
	for _, c := range l.answering {
		answering = append(answering, c.ID)
	}
	for _, c := range l.slow {
		slow = append(slow, c.ID)
	}
	slices.Sort(answering)
	slices.Sort(slow)
	if !slices.Equal(slow, []string{"d", "e"}) || !slices.Equal(answering, []string{"a", "b"}) {
		t.Fatalf("lanes %v and %v, want [a b] answering and [d e] slow (the skipped c in neither)", answering, slow)
	}
}
