package exporter

import (
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

func TestCheckOrderStartsWithLastCyclesTimeouts(t *testing.T) {
	inv := collector.Inventory{Clusters: []collector.Cluster{
		{ID: "a", State: "Running"}, {ID: "b", State: "Running"}, {ID: "c", State: "Scaling"}, {ID: "d", State: "Alert"},
	}}
	prev := []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: "d"}, NodesError: "timeout"},
		{Cluster: collector.Cluster{ID: "b"}, NodesError: "auth"},
	}
	var got []string
	for _, c := range checkOrder(inv, collector.Shard{}, prev) {
		got = append(got, c.ID)
	}
	if want := []string{"d", "a", "b"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("order %v, want %v (skipped cluster left out, last timeout first)", got, want)
	}
}
