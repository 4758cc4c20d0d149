package simulator

import (
	"fmt"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// StartOperation puts a cluster in an operation state (Scaling, Upgrading, Starting, ...) as
// CloudStack does when the command is asked for at the time given: the cluster takes the state
// and CloudStack records the command's Scheduled event then (see cloudstacktest.Event). A time in
// the past makes a cluster that has been in the state for that long, as a failed scale leaves one.
func (s *Simulator) StartOperation(clusterID, state string, at time.Time) error {
	var err error
	s.CloudStack.Update(func(w *cloudstacktest.World) {
		c := clusterByID(w, clusterID)
		if c == nil {
			err = ErrNoCluster
			return
		}
		c.State = state
		for _, k := range collector.OperationEvents[state] {
			e := cloudstacktest.Event{Type: k.Type, Created: at}.Of(c)
			switch k.Names {
			case collector.NamedByUUID:
				e.Description = fmt.Sprintf("%s Kubernetes cluster ID: %s", verb(k.Type), c.ID)
			case collector.NamedAsResource:
				e.Description = fmt.Sprintf("Kubernetes cluster nodes (%s) of cluster with ID: %d", k.Type, c.InternalID)
				e.ResourceID, e.ResourceType = c.ID, "KubernetesCluster"
			default:
				continue
			}
			w.AddEvent(e)
			return
		}
	})
	return err
}

// verb is the first word of a cluster command's event description ("Scaling Kubernetes cluster
// ID: <uuid>").
func verb(eventType string) string {
	switch strings.TrimPrefix(eventType, "KUBERNETES.CLUSTER.") {
	case "START":
		return "Starting"
	case "STOP":
		return "Stopping"
	case "SCALE":
		return "Scaling"
	case "UPGRADE":
		return "Upgrading"
	default:
		return "Deleting"
	}
}
