package collector

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/prometheus/client_golang/prometheus"
)

// ChunkIdentity is what a chunk of Metrics.Chunks is built from, so that an exposition can keep
// the encoding of a chunk that did not change between two snapshots: a re-check changes a few
// clusters of ten thousand, and encoding them all again took a second of a loaded machine.
type ChunkIdentity struct {
	// Family is the chunk's family.
	Family *prometheus.Desc
	// Key sums up the chunk's series: for a family of per-cluster series, the clusters' ids in
	// order, when each was read (ReadAt: a status is made once, by the sweep or re-check that
	// read it at that time, and copied unchanged after) and the finding series limit.
	Key uint64
	// Reusable is false for a family of the snapshot as a whole (its series change with every
	// snapshot) and for a chunk with a cluster never read (no ReadAt: a status not made by a
	// sweep or re-check).
	Reusable bool
}

// Identity returns the identity of a chunk made by Metrics.Chunks; ok is false for any other
// collector.
func Identity(c prometheus.Collector, seed maphash.Seed) (id ChunkIdentity, ok bool) {
	ch, ok := c.(chunk)
	if !ok {
		return ChunkIdentity{}, false
	}
	id.Family = ch.f.desc
	if !ch.f.perCluster {
		return id, true
	}
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(ch.s.FindingSeriesLimit))
	_, _ = h.Write(n[:])
	for _, i := range ch.clusters {
		s := ch.s.Clusters[i]
		if s.ReadAt.IsZero() {
			return id, true
		}
		_, _ = h.WriteString(s.Cluster.ID)
		binary.LittleEndian.PutUint64(n[:], uint64(s.ReadAt.UnixNano()))
		_, _ = h.Write(n[:])
	}
	id.Key, id.Reusable = h.Sum64(), true
	return id, true
}
