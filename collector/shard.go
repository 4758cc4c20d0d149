package collector

import "hash/fnv"

// Shard is the part of the clusters one replica owns, as kube-state-metrics shards objects: a
// cluster belongs to the shard its uuid hashes to, so replicas with the same total cover every
// cluster exactly once.
type Shard struct {
	Ordinal int
	Total   int
}

// Owns reports whether the cluster belongs to this shard; a zero Shard owns every cluster.
func (s Shard) Owns(clusterID string) bool {
	if s.Total <= 1 {
		return true
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(clusterID))
	return int(h.Sum32()%uint32(s.Total)) == s.Ordinal
}
