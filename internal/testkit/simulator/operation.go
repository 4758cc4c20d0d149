package simulator

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// StartOperation puts a cluster in an operation state (Scaling, Upgrading, Starting, ...) as
// CloudStack does when the command is asked for at the time given: the cluster takes the state
// and CloudStack records the command's Scheduled event then (see cloudstacktest.Event). A time in
// the past makes a cluster that has been in the state for that long, as a failed scale leaves one.
func (s *Simulator) StartOperation(clusterID, state string, at time.Time) error {
	return s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		c.State = state
		for _, k := range collector.OperationEvents[state] {
			if k.Names == collector.NamedByUUID || k.Names == collector.NamedAsResource {
				w.AddEvent(w.OperationEvent(c, k.Type, at))
				return
			}
		}
	})
}
