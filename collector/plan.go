package collector

// Plan splits the clusters of inv that shard owns into those a cycle checks and those it skips,
// each in the inventory's order. It is the one place that decides which clusters are compared:
// the cycle lists the nodes of the checked ones, and EvaluateShard compares them and carries the
// skipped ones over as they were.
func Plan(inv Inventory, shard Shard) (checked, skipped []Cluster) {
	for _, c := range inv.Clusters {
		switch {
		case !shard.Owns(c.ID):
		case checkable(c):
			checked = append(checked, c)
		default:
			skipped = append(skipped, c)
		}
	}
	return checked, skipped
}

// checkable reports whether a cluster is compared in a cycle: CloudManaged clusters in Running or
// Alert state. Every other state, known or not, means an operation may be changing the VM map.
func checkable(c Cluster) bool {
	if c.ClusterType == "ExternalManaged" {
		return false
	}
	return c.State == "Running" || c.State == "Alert"
}
