package collector

import (
	"slices"
	"time"
)

// The bounds of the history of resolved findings. Per cluster, so that a tenant whose drift comes
// and goes every cycle pushes out only its own cluster's history, never another's; in total, so
// that the state file (where the history is kept across restarts, rewritten in the cycles where
// it changes) and the status page stay small: 1,000 entries of about 500 bytes each are half a
// megabyte at most.
const (
	MaxResolvedPerCluster = 20
	MaxResolved           = 1000
)

// Resolved is a finding that cleared: it was reported by one cycle and no longer by the next one
// that compared its side.
type Resolved struct {
	ClusterID   string `json:"cluster_id"`
	ClusterName string `json:"cluster_name"`
	Finding
	ResolvedAt time.Time `json:"resolved"`
}

// RecordResolved returns history with the findings that cleared between prev and next added in
// front (newest first), and the entries of clusters no longer in next dropped, as every other
// state of a forgotten cluster is; it bounds the result by MaxResolvedPerCluster and
// MaxResolved. A side counts as compared only as its declaration's Compared says (the cluster was
// checked; for the node side, its nodes were listed; for the network side, its rules read):
// findings kept unchanged by a skipped or unreachable cluster have not cleared; the operation
// side (stuck_in_operation) is evaluated in every cycle. An accepted finding is still present: one that an accept rule takes (or gives
// back) has not cleared, one that is gone while accepted has. The input is not changed.
func RecordResolved(history []Resolved, prev, next []ClusterStatus, now time.Time) []Resolved {
	before := make(map[string]ClusterStatus, len(prev))
	for _, s := range prev {
		before[s.Cluster.ID] = s
	}
	present := make(map[string]bool, len(next))
	var fresh []Resolved
	for _, s := range next {
		present[s.Cluster.ID] = true
		p, seen := before[s.Cluster.ID]
		if !seen {
			continue
		}
		for _, d := range SideDeclarations {
			if d.Compared(s) {
				fresh = appendCleared(fresh, s.Cluster, p.present(d.Side), s.present(d.Side), now)
			}
		}
	}
	out := make([]Resolved, 0, min(len(fresh)+len(history), MaxResolved))
	perCluster := make(map[string]int)
	for _, r := range slices.Concat(fresh, history) {
		if !present[r.ClusterID] || perCluster[r.ClusterID] == MaxResolvedPerCluster || len(out) == MaxResolved {
			continue
		}
		perCluster[r.ClusterID]++
		out = append(out, r)
	}
	return out
}

// appendCleared appends the findings of was that are not in is.
func appendCleared(out []Resolved, c Cluster, was, is []Finding, now time.Time) []Resolved {
	if len(was) == 0 {
		return out
	}
	still := make(map[string]bool, len(is))
	for _, f := range is {
		still[f.Key()] = true
	}
	for _, f := range was {
		if !still[f.Key()] {
			out = append(out, Resolved{ClusterID: c.ID, ClusterName: c.Name, Finding: f, ResolvedAt: now})
		}
	}
	return out
}

// present returns the findings of one side that are there, accepted ones included.
func (s ClusterStatus) present(side Side) []Finding {
	out := s.On(side)
	for _, a := range s.Accepted {
		if a.Kind.Side() == side {
			out = append(slices.Clip(out), a.Finding)
		}
	}
	return out
}
