package mariadbtest

import (
	"fmt"
	"time"
)

// Event is an event row, as CloudStack writes one when a command is submitted (see
// cloudstacktest.Event for what each cluster command records).
type Event struct {
	ID           int64
	UUID         string
	AccountID    int64 // the owner of the entity the command acts on
	Type         string
	State        string
	Description  string
	ResourceID   any // the resource's internal id, or nil
	ResourceType any
	Created      time.Time
	Archived     bool
}

// AddOperationEvent records the Scheduled event of a cluster command submitted at the time given:
// KUBERNETES.CLUSTER.SCALE, UPGRADE, START, STOP and DELETE describe the cluster by uuid
// ("Scaling Kubernetes cluster ID: <uuid>"), CREATE by internal id, and 4.21's NODES.ADD and
// NODES.REMOVE name it as their resource.
func (w *World) AddOperationEvent(c *Cluster, eventType string, at time.Time) *Event {
	e := &Event{ID: w.id("event"), AccountID: c.Account.ID, Type: eventType, State: "Scheduled", Created: at.UTC().Truncate(time.Second)}
	e.UUID = uuid(20, e.ID)
	switch eventType {
	case "KUBERNETES.CLUSTER.CREATE":
		e.Description = fmt.Sprintf("Creating Kubernetes cluster. Cluster Id: %d", c.ID)
	case "KUBERNETES.CLUSTER.NODES.ADD", "KUBERNETES.CLUSTER.NODES.REMOVE":
		e.Description = fmt.Sprintf("Removing 1 nodes from the Kubernetes Cluster with ID: %d", c.ID)
		e.ResourceID, e.ResourceType = c.ID, "KubernetesCluster"
	default:
		e.Description = "Scaling Kubernetes cluster ID: " + c.UUID
	}
	w.Events = append(w.Events, e)
	return e
}
