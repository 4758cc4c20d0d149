package notifier

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// stateSeen is since when a cluster has been in an operation state, as the exporter first saw
// it (or CloudStack recorded it).
type stateSeen struct {
	State string    `json:"state"`
	Since time.Time `json:"since"`
}

// StateSince returns the time remembered since which the cluster has been in state, across
// restarts; only operation states are remembered (collector.OperationState).
func (n *Notifier) StateSince(clusterID, state string) (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen, ok := n.state.States[clusterID]
	if !ok || seen.State != state || seen.Since.IsZero() {
		return time.Time{}, false
	}
	return seen.Since, true
}

// rememberStates keeps since when each cluster of statuses in an operation state has been in it,
// and forgets the others: a cluster that left its operation state starts afresh the next time,
// and a cluster that is gone is forgotten. The entries are bounded by the clusters.
func (s *state) rememberStates(statuses []collector.ClusterStatus) {
	for i := range statuses {
		c, since := statuses[i].Cluster, statuses[i].StateSince
		if !collector.OperationState(c.State) || since.IsZero() {
			delete(s.States, c.ID)
			continue
		}
		if s.States == nil {
			s.States = make(map[string]stateSeen)
		}
		if old, ok := s.States[c.ID]; ok && old.State == c.State && !old.Since.After(since) {
			continue
		}
		s.States[c.ID] = stateSeen{State: c.State, Since: since.UTC()}
	}
	present := make(map[string]bool, len(statuses))
	for i := range statuses {
		present[statuses[i].Cluster.ID] = true
	}
	for id := range s.States {
		if !present[id] {
			delete(s.States, id)
		}
	}
}

// updateOperation brings a cluster's operation side up to date with its stuck_in_operation
// finding. Only leaving the state resolves it ("no longer stuck"): a finding that goes while the
// cluster stays in the state (check.stuck_after raised, or 0) is dropped without a resolution,
// which would not be true.
func (s *state) updateOperation(cs *clusterState, c collector.Cluster, findings []collector.Finding, accepted bool) []event {
	if ss := cs.Sides[collector.SideOperation]; ss != nil && len(findings) == 0 && !accepted && ss.State == c.State {
		s.archiveAll(ss)
		delete(cs.Sides, collector.SideOperation)
		return nil
	}
	events := s.updateSide(cs, c, collector.SideOperation, findings, accepted)
	ss := cs.Sides[collector.SideOperation]
	if ss == nil {
		return events
	}
	// The state the cluster is stuck in; in alertmanager mode the finding outlives the state
	// until Alertmanager resolves it, and the state it was stuck in is kept.
	if (len(findings) > 0 || (accepted && ss.State == "")) && collector.OperationState(c.State) {
		ss.State = c.State
	}
	for i := range events {
		if events[i].Resolved {
			events[i].State = ss.State
		}
	}
	return events
}

// Announced returns the findings of a cluster, by side, that the notifier keeps announced, as
// the cycle that found them had them (kind, VM, message, first seen), so that a cluster skipped
// in the first cycle after a restart keeps showing them, as it would have without the restart.
// The operation side is left out (collector.MarkStates makes it afresh). Announcements of an
// older state file, which name no VM, are left out unless their kind is about the whole cluster.
func (n *Notifier) Announced(clusterID string) map[collector.Side][]collector.Finding {
	n.mu.Lock()
	defer n.mu.Unlock()
	cs := n.state.Clusters[clusterID]
	if cs == nil {
		return nil
	}
	out := make(map[collector.Side][]collector.Finding)
	for _, side := range collector.Sides {
		ss := cs.Sides[side]
		if ss == nil || side == collector.SideOperation {
			continue
		}
		for _, key := range sortedKeys(ss.Findings) {
			a := ss.Findings[key]
			f := collector.Finding{Kind: a.Kind, VMID: a.VMID, VMName: a.VMName, Message: a.Message, FirstSeen: a.FirstSeen, Cause: a.Cause}
			if f.Key() != key { // an older state's announcement: its VM is not known
				continue
			}
			out[side] = append(out[side], f)
		}
	}
	return out
}
