package collector

import "time"

// FirstSeenMemory returns the first-seen time remembered for a finding of a cluster across
// restarts (the notifier's state keeps it), and whether one is.
type FirstSeenMemory func(clusterID string, side Side, key string) (time.Time, bool)

// carryFirstSeen is the one place that decides when a finding was first seen, for every side
// (EvaluateShard calls it for the VM and node sides, MarkStates for the operation side). Each
// finding of cur, found on side of the cluster clusterID, keeps the first-seen time of the same
// finding in prev, the last snapshot's. Only one that prev does not have is looked up in memory,
// so that a finding seen before a restart, or one the notifier still holds (a drift alert that
// Alertmanager still reports firing), keeps its time; one that memory does not know either was
// first seen now. A nil memory remembers nothing.
func carryFirstSeen(clusterID string, side Side, cur, prev []Finding, memory FirstSeenMemory, now time.Time) {
	first := make(map[string]time.Time, len(prev))
	for _, f := range prev {
		if !f.FirstSeen.IsZero() {
			first[f.Key()] = f.FirstSeen
		}
	}
	for i := range cur {
		key := cur[i].Key()
		t, ok := first[key]
		if !ok && memory != nil {
			t, ok = memory(clusterID, side, key)
		}
		if !ok || t.IsZero() {
			t = now
		}
		cur[i].FirstSeen = t
	}
}
