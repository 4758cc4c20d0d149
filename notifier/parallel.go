package notifier

// The calls of one pass grow with the new findings, each a round trip to the management server:
// made one after another, 500 annotations at 50 ms take 25 s of the cycle. So the clusters' calls
// run at once, at most Options.Concurrency in flight, while the calls of one cluster keep their
// planned order (its findings' annotations and alerts, its resolution, its summary annotation).
// Archive jobs finish before any cluster's calls start, so that no alert is raised with a type
// still being archived; the capped-alerts summary comes after everything else.

// byCluster splits the planned jobs into the archive jobs and one list per cluster, each list in
// planned order and the clusters in the order plan met them.
func byCluster(jobs []job) (archives []job, clusters [][]job) {
	index := make(map[string]int)
	for _, j := range jobs {
		if j.kind == jobArchive {
			archives = append(archives, j)
			continue
		}
		i, ok := index[j.clusterID]
		if !ok {
			i = len(clusters)
			index[j.clusterID] = i
			clusters = append(clusters, nil)
		}
		clusters[i] = append(clusters[i], j)
	}
	return archives, clusters
}

// locked runs fn under n.work: the workers of a pass change the state, the failure log and the
// pauses only under it, and make their CloudStack calls outside it.
func (n *Notifier) locked(fn func()) {
	n.work.Lock()
	defer n.work.Unlock()
	fn()
}
