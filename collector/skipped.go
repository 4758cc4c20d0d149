package collector

// AnnouncedMemory returns the findings of a cluster's VM and node sides that were announced
// before a restart and are still held announced (the notifier's state keeps them).
type AnnouncedMemory func(clusterID string) (vm, node []Finding)

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
		s.VM, s.Node = memory(s.Cluster.ID)
		sortFindings(s.VM)
		sortFindings(s.Node)
	}
}
