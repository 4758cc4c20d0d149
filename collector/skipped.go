package collector

import "slices"

// AnnouncedMemory returns the findings of a cluster, by side, that were announced before a
// restart and are still held announced (the notifier's state keeps them); the operation side is
// left out, MarkStates makes it afresh.
type AnnouncedMemory func(clusterID string) map[Side][]Finding

// RestoreSkipped gives a cluster that is skipped and that the last snapshot does not know (the
// first cycle after a start) the findings memory holds for it: a skipped cluster keeps its
// findings as they were, and a restart while it is skipped (a cluster stuck in Scaling) must not
// make them vanish from /metrics and /findings until it is checked again.
func RestoreSkipped(statuses, prev []ClusterStatus, memory AnnouncedMemory) {
	known := make(map[string]bool, len(prev))
	for _, s := range prev {
		known[s.Cluster.ID] = true
	}
	for i := range statuses {
		s := &statuses[i]
		if s.Checked || known[s.Cluster.ID] {
			continue
		}
		for side, fs := range memory(s.Cluster.ID) {
			if side == SideOperation {
				continue
			}
			fs = slices.Clone(fs)
			sortFindings(fs)
			s.Set(side, fs)
		}
	}
}
