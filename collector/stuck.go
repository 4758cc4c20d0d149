package collector

import "time"

// StateMemory returns the time remembered, across restarts, since which a cluster has been in the
// state it is in, and whether one is (the notifier's state keeps it).
type StateMemory func(clusterID, state string) (time.Time, bool)

// MarkStates sets StateSince of every status: the earliest of when an earlier cycle of prev first
// saw the cluster in its current state, what memory remembers of it, and now. It is the only
// place that sets StateSince.
func MarkStates(statuses, prev []ClusterStatus, memory StateMemory, now time.Time) {
	before := make(map[string]ClusterStatus, len(prev))
	for _, s := range prev {
		before[s.Cluster.ID] = s
	}
	for i := range statuses {
		s := &statuses[i]
		since := now
		if p, ok := before[s.Cluster.ID]; ok && p.Cluster.State == s.Cluster.State && !p.StateSince.IsZero() && p.StateSince.Before(since) {
			since = p.StateSince
		}
		if memory != nil {
			if t, ok := memory(s.Cluster.ID, s.Cluster.State); ok && !t.IsZero() && t.Before(since) {
				since = t
			}
		}
		s.StateSince = since
	}
}
