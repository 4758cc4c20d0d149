package collector

import (
	"cmp"
	"slices"
)

// A control node prints whatever node names its tenant likes, up to ssh.max_nodes, and each
// is a node_without_vm finding; printing a thousand fresh names every cycle once made two
// clusters create 2,000 new cks_drift_finding series per scrape, 290,000 a day, each a series
// Prometheus keeps for its retention. So one cluster shows at most limit of them: its oldest
// (first seen, then key), which stay the same from scrape to scrape while new names come and go.
// cks_drift_findings keeps the exact count per kind, and cks_drift_finding_series_omitted says
// how many were left out.

// findingSeries returns the findings of a cluster that get a series of their own, and how many
// do not; limit 0 shows all.
func findingSeries(cs ClusterStatus, limit int) (shown []Finding, omitted int) {
	all := cs.Findings()
	if limit <= 0 || len(all) <= limit {
		return all, 0
	}
	slices.SortFunc(all, func(a, b Finding) int {
		return cmp.Or(a.FirstSeen.Compare(b.FirstSeen), cmp.Compare(a.Key(), b.Key()))
	})
	return all[:limit], len(all) - limit
}
