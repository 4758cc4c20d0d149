package collector

import (
	"slices"
	"testing"
)

// TestPlan: a cycle checks the CloudManaged clusters in Running or Alert state that its shard
// owns and skips the shard's others; another shard's clusters are in neither list.
func TestPlan(t *testing.T) {
	t.Parallel()
	inv := Inventory{Clusters: []Cluster{
		{ID: "running", State: "Running", ClusterType: "CloudManaged"},
		{ID: "alert", State: "Alert"},
		{ID: "scaling", State: "Scaling", ClusterType: "CloudManaged"},
		{ID: "unknown-state", State: "Frobnicating"},
		{ID: "external", State: "Running", ClusterType: "ExternalManaged"},
	}}
	ids := func(cs []Cluster) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	checked, skipped := Plan(inv, Shard{})
	if want := []string{"running", "alert"}; !slices.Equal(ids(checked), want) {
		t.Errorf("checked %v, want %v", ids(checked), want)
	}
	if want := []string{"scaling", "unknown-state", "external"}; !slices.Equal(ids(skipped), want) {
		t.Errorf("skipped %v, want %v", ids(skipped), want)
	}
	// Two shards split the clusters between them: each cluster in exactly one shard's plan.
	seen := make(map[string]int)
	for ordinal := range 2 {
		checked, skipped := Plan(inv, Shard{Ordinal: ordinal, Total: 2})
		for _, c := range slices.Concat(checked, skipped) {
			if !(Shard{Ordinal: ordinal, Total: 2}).Owns(c.ID) {
				t.Errorf("shard %d plans %s, which it does not own", ordinal, c.ID)
			}
			seen[c.ID]++
		}
	}
	for _, c := range inv.Clusters {
		if seen[c.ID] != 1 {
			t.Errorf("%s in %d shards' plans, want 1", c.ID, seen[c.ID])
		}
	}
}
