package exporter

import (
	"log/slog"
	"slices"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// sideGap is what a cycle could not compare on one side: how many checked clusters, an example,
// and why, for the network side the rules' errors (at most maxGapReasons, each once).
type sideGap struct {
	clusters int
	example  collector.Cluster
	reasons  []string
}

// maxGapReasons bounds the reasons a line names: each cluster's rules may fail on their own.
const maxGapReasons = 3

// sideGaps returns, per side other than the node side (logReachability logs that per cluster),
// the clusters of statuses whose side could not be compared because what it compares could not
// be read (SideDeclaration.Unread, as cks_drift_sides_not_compared counts them).
func sideGaps(statuses []collector.ClusterStatus) map[collector.Side]sideGap {
	gaps := make(map[collector.Side]sideGap)
	for _, d := range collector.SideDeclarations {
		if d.Side == collector.SideNode {
			continue
		}
		var g sideGap
		for _, s := range statuses {
			if !d.Unread(s) {
				continue
			}
			if g.clusters++; g.clusters == 1 {
				g.example = s.Cluster
			}
			if r := s.Cluster.Rules; d.Side == collector.SideNetwork && r != nil && r.Err != "" &&
				len(g.reasons) < maxGapReasons && !slices.Contains(g.reasons, r.Err) {
				g.reasons = append(g.reasons, r.Err)
			}
		}
		if g.clusters > 0 {
			gaps[d.Side] = g
		}
	}
	return gaps
}

// logSideGaps logs, once per change and not every cycle, that a side could not be compared for
// some clusters (a role without listFirewallRules, a database account without the grants of the
// network side, the service offerings not listed): a WARN when it starts or its reasons change,
// an INFO when every cluster's side is compared again. cks_drift_sides_not_compared counts them
// every cycle; without a line an operator reading the log would take the side for one without
// drift, since its findings are kept as they were.
func logSideGaps(prev, cur []collector.ClusterStatus, logger *slog.Logger) {
	before, now := sideGaps(prev), sideGaps(cur)
	for _, side := range collector.Sides {
		b, was := before[side]
		n, is := now[side]
		switch {
		case is && (!was || !slices.Equal(b.reasons, n.reasons)):
			logger.Warn("Could not compare a side of some clusters; their findings of it are kept as they were until it can be read",
				"side", side, "clusters", n.clusters, "cluster", n.example.Name, "cluster_id", n.example.ID, "reasons", n.reasons)
		case was && !is:
			logger.Info("The side is compared again for every cluster", "side", side, "clusters_before", b.clusters)
		}
	}
}
