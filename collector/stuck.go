package collector

import (
	"fmt"
	"time"

	"github.com/prometheus/common/model"
)

// settledStates are the states a cluster stays in without an operation under way. Every other
// state, CKS's transient ones (Starting, Stopping, Scaling, ScalingStoppedCluster, Upgrading,
// Importing, RemovingNodes, Recovering, Destroying) and any a build adds, is an operation state: CKS leaves it when the
// operation ends, and a cluster that stays there is stuck (a failed scale left in Scaling,
// apache/cloudstack#7920 and #12565; a start left in Starting, #6094 and #5999).
// KubernetesCluster.java defines the states and their transitions (read at 4.14.0.0, 4.17.0.0 and
// on the main branch; 4.21 adds Importing and RemovingNodes; 4.20.2.0 and main, not 4.21.0.0, add
// ScalingStoppedCluster, apache/cloudstack#11598).
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
// stuckAfter has the finding (0: never), first seen when prev's finding of the same state was, or
// when firstSeen remembers (carryFirstSeen); its findings of the other sides are left as they are. It is
// the only place that sets StateSince, and it runs before the accept rules, which may accept the
// finding.
func MarkStates(statuses, prev []ClusterStatus, memory StateMemory, firstSeen FirstSeenMemory, now time.Time, stuckAfter time.Duration) {
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
		// CloudStack's record is the latest event of its kind; one from before the cluster
		// entered the state the exporter saw it in before is an earlier operation's.
		recorded := c.OperationStarted
		if seen && p.Cluster.State != c.State && recorded.Before(p.StateSince) {
			recorded = time.Time{}
		}
		if operation && !recorded.IsZero() && recorded.Before(since) {
			since = recorded
		}
		s.StateSince = since
		s.Set(SideOperation, nil)
		if !operation || stuckAfter <= 0 || now.Sub(since) <= stuckAfter {
			continue
		}
		var before []Finding // a stuck finding of an earlier state is not this one
		if seen && p.Cluster.State == c.State {
			before = p.withAccepted().On(SideOperation)
		}
		stuck := []Finding{{Kind: KindStuckInOperation, Message: StuckMessage(c.Name, c.State, since, stuckAfter)}}
		carryFirstSeen(c.ID, SideOperation, stuck, before, firstSeen, now)
		s.Set(SideOperation, stuck)
	}
}

// StuckMessage is the message of a stuck_in_operation finding.
func StuckMessage(cluster, state string, since time.Time, stuckAfter time.Duration) string {
	return fmt.Sprintf("Kubernetes cluster %s has been in state %s since %s, longer than %s",
		cluster, state, since.UTC().Format(time.RFC3339), model.Duration(stuckAfter))
}

// OperationEvent is an event CloudStack records when an operation that puts a cluster in a state
// is asked for: the Scheduled event of the command (ApiServer.queueCommand calls
// ActionEventUtils.onScheduledActionEvent with the command's getEventType and
// getEventDescription, 4.14.0.0 onward; KubernetesClusterEventTypes.java names the types).
type OperationEvent struct {
	Type string
	// Names says how the event names its cluster: NamedByUUID, NamedByInternalID or
	// NamedAsResource.
	Names EventNaming
}

// EventNaming is how an event names the cluster it is about.
type EventNaming int

const (
	// NamedByUUID: the description ends in the cluster's uuid ("Scaling Kubernetes cluster ID:
	// <uuid>"; the Start, Stop, Scale, Upgrade and Delete commands' getEventDescription, read at
	// 4.14.0.0, 4.17.0.0, on the 4.18 branch and on main).
	NamedByUUID EventNaming = iota
	// NamedByInternalID: the description ends in the cluster's internal id ("Creating Kubernetes
	// cluster. Cluster Id: <id>", CreateKubernetesClusterCmd, "creating" at 4.14.0.0): only a
	// source that reads the database knows it.
	NamedByInternalID
	// NamedAsResource: the event's resource is the cluster (4.21's addNodesToKubernetesCluster and
	// removeNodesFromKubernetesCluster override getApiResourceId and getApiResourceType; read at
	// 4.21.0.0). From 4.19.1.0 every cluster command's events name the cluster as their resource
	// too (apache/cloudstack#9070): the sources look the others up by resource first.
	NamedAsResource
)

// OperationEvents lists, by operation state, the events whose latest one tells when the
// operation started. Recovering has none: CKS's state scanner starts it without a command.
var OperationEvents = map[string][]OperationEvent{
	"Starting": {{Type: "KUBERNETES.CLUSTER.START"}, {Type: "KUBERNETES.CLUSTER.CREATE", Names: NamedByInternalID}},
	"Stopping": {{Type: "KUBERNETES.CLUSTER.STOP"}},
	"Scaling":  {{Type: "KUBERNETES.CLUSTER.SCALE"}},
	// A scale of a Stopped cluster's service offerings (KubernetesCluster.java at 4.20.2.0 and on
	// main: Stopped -> ScalingStoppedCluster on ScaleUpRequested, left to Stopped or Alert; the
	// same scaleKubernetesCluster command).
	"ScalingStoppedCluster": {{Type: "KUBERNETES.CLUSTER.SCALE"}},
	"Upgrading":             {{Type: "KUBERNETES.CLUSTER.UPGRADE"}},
	"Destroying":            {{Type: "KUBERNETES.CLUSTER.DELETE"}},
	// addNodesToKubernetesCluster moves a Running or Alert cluster to Importing (AddNodeRequested,
	// KubernetesCluster.java at 4.21.0.0).
	"Importing":     {{Type: "KUBERNETES.CLUSTER.NODES.ADD", Names: NamedAsResource}},
	"RemovingNodes": {{Type: "KUBERNETES.CLUSTER.NODES.REMOVE", Names: NamedAsResource}},
}
