package collector

import (
	"fmt"
	"time"

	"github.com/prometheus/common/model"
)

// settledStates are the states a cluster stays in without an operation under way. Every other
// state, CKS's transient ones (Starting, Stopping, Scaling, Upgrading, Importing, RemovingNodes,
// Recovering, Destroying) and any a build adds, is an operation state: CKS leaves it when the
// operation ends, and a cluster that stays there is stuck (a failed scale left in Scaling,
// apache/cloudstack#7920 and #12565; a start left in Starting, #6094 and #5999).
// KubernetesCluster.java (4.14.0.0 to 4.22) defines the states and their transitions.
var settledStates = map[string]bool{
	"Created": true, "Running": true, "Alert": true, "Stopped": true, "Error": true, "Destroyed": true,
}

// OperationState reports whether a cluster in state is in an operation that should end on its own.
func OperationState(state string) bool {
	return state != "" && !settledStates[state]
}

// StateMemory returns the time remembered, across restarts, since which a cluster has been in the
// state it is in, and whether one is (the notifier's state keeps it).
type StateMemory func(clusterID, state string) (time.Time, bool)

// MarkStates sets StateSince of every status and its stuck_in_operation finding. StateSince is
// the earliest of: now; when an earlier cycle (prev) first saw the cluster in its current state;
// what memory remembers of it; and, in an operation state, when CloudStack records that the
// operation started (Cluster.OperationStarted). A cluster in an operation state for longer than
// stuckAfter has the finding (0: never); its VM and Node findings are left as they are. It is the
// only place that sets StateSince, and it runs before the accept rules, which may accept the
// finding.
func MarkStates(statuses, prev []ClusterStatus, memory StateMemory, now time.Time, stuckAfter time.Duration) {
	before := make(map[string]ClusterStatus, len(prev))
	for _, s := range prev {
		before[s.Cluster.ID] = s
	}
	for i := range statuses {
		s := &statuses[i]
		c := s.Cluster
		since := now
		p, seen := before[c.ID]
		if seen && p.Cluster.State == c.State && !p.StateSince.IsZero() && p.StateSince.Before(since) {
			since = p.StateSince
		}
		if memory != nil {
			if t, ok := memory(c.ID, c.State); ok && !t.IsZero() && t.Before(since) {
				since = t
			}
		}
		operation := OperationState(c.State)
		if t := c.OperationStarted; operation && !t.IsZero() && t.Before(since) {
			since = t
		}
		s.StateSince = since
		s.Operation = nil
		if !operation || stuckAfter <= 0 || now.Sub(since) <= stuckAfter {
			continue
		}
		f := Finding{Kind: KindStuckInOperation, Message: StuckMessage(c.Name, c.State, since, stuckAfter), FirstSeen: now}
		if seen && p.Cluster.State == c.State {
			for _, q := range p.withAccepted().Operation {
				if q.Key() == f.Key() && !q.FirstSeen.IsZero() {
					f.FirstSeen = q.FirstSeen
				}
			}
		}
		s.Operation = []Finding{f}
	}
}

// StuckMessage is the message of a stuck_in_operation finding.
func StuckMessage(cluster, state string, since time.Time, stuckAfter time.Duration) string {
	return fmt.Sprintf("Kubernetes cluster %s has been in state %s since %s, longer than %s",
		cluster, state, since.UTC().Format(time.RFC3339), model.Duration(stuckAfter))
}
