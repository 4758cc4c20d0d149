package collector

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// EvaluateSome is EvaluateShard for the clusters named in only: a re-check of a few clusters
// that events named. inv holds them as just read, the VMs they may concern, and every other
// cluster as last seen, so that a VM another cluster maps still counts as mapped. It returns the
// statuses of the clusters of only that inv holds.
func EvaluateSome(prev []ClusterStatus, inv Inventory, only map[string]bool, nodes map[string]NodeList, now time.Time, grace time.Duration, shard Shard, memory FirstSeenMemory) []ClusterStatus {
	return evaluate(prev, inv, nodes, now, grace, shard, memory, only)
}

// among returns the clusters whose id is in only.
func among(clusters []Cluster, only map[string]bool) []Cluster {
	return slices.DeleteFunc(clusters, func(c Cluster) bool { return !only[c.ID] })
}

// Replace returns all with each status of some in place of the one of its cluster, and without
// the clusters of gone; the order (by name, then id) is kept.
func Replace(all, some []ClusterStatus, gone map[string]bool) []ClusterStatus {
	byID := make(map[string]ClusterStatus, len(some))
	for _, s := range some {
		byID[s.Cluster.ID] = s
	}
	out := make([]ClusterStatus, 0, len(all))
	for _, s := range all {
		if gone[s.Cluster.ID] {
			continue
		}
		if n, ok := byID[s.Cluster.ID]; ok {
			s = n
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b ClusterStatus) int {
		return cmp.Or(strings.Compare(a.Cluster.Name, b.Cluster.Name), strings.Compare(a.Cluster.ID, b.Cluster.ID))
	})
	return out
}
