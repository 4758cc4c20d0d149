package exporter

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The clusters whose control node timed out in the last cycle are in the hanging lane, every
// other checkable one in the answering lane, and skipped clusters in neither.
func TestCheckLanesSetLastCyclesTimeoutsApart(t *testing.T) {
	inv := collector.Inventory{Clusters: []collector.Cluster{
		{ID: "a", State: "Running"}, {ID: "b", State: "Running"}, {ID: "c", State: "Scaling"}, {ID: "d", State: "Alert"},
	}}
	prev := []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: "d"}, Nodes: collector.NodeList{Err: "timeout"}},
		{Cluster: collector.Cluster{ID: "b"}, Nodes: collector.NodeList{Err: "auth"}},
	}
	l := checkLanes(inv, collector.Shard{}, prev, collector.NewTurns())
	var answering []string
	for _, c := range l.answering {
		answering = append(answering, c.ID)
	}
	slices.Sort(answering)
	if len(l.hanging) != 1 || l.hanging[0].ID != "d" || !slices.Equal(answering, []string{"a", "b"}) {
		t.Fatalf("lanes %v and %+v, want [a b] answering and d hanging (the skipped c in neither)", answering, l.hanging)
	}
}
