package database

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestOperationStarted reads when the operation of a cluster in an operation state started from
// the event table, on every schema: the newest Scheduled event of the state's command naming the
// cluster (by uuid; the create by internal id; 4.21's node commands as their resource); another
// cluster's, another command's, an archived one and the end of an operation do not count; a
// Running cluster has none. The statement count stays the same: it is a column of the cluster
// query.
func TestOperationStarted(t *testing.T) {
	at := created.Add(-2 * time.Hour).UTC().Truncate(time.Second)
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := mariadbtest.NewWorld()
			alice := w.AddAccount("alice")
			spec := func(name, state string) *mariadbtest.Cluster {
				s := w.AddCluster(mariadbtest.ClusterSpec{Name: name, Owner: alice, Control: 1, Workers: 1, Created: created})
				s.Cluster.State = state
				return s.Cluster
			}
			scaling, starting, running, removing := spec("scaling", "Scaling"), spec("starting", "Starting"), spec("running", "Running"), spec("removing", "RemovingNodes")
			w.AddOperationEvent(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(-24*time.Hour))
			w.AddOperationEvent(scaling, "KUBERNETES.CLUSTER.SCALE", at)
			w.AddOperationEvent(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(time.Hour)).Archived = true
			w.AddOperationEvent(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(2*time.Hour)).State = "Completed"
			w.AddOperationEvent(scaling, "KUBERNETES.CLUSTER.UPGRADE", at.Add(3*time.Hour))
			w.AddOperationEvent(running, "KUBERNETES.CLUSTER.SCALE", at.Add(4*time.Hour))
			w.AddOperationEvent(starting, "KUBERNETES.CLUSTER.CREATE", at.Add(-time.Minute))
			w.AddOperationEvent(removing, "KUBERNETES.CLUSTER.NODES.REMOVE", at.Add(-2*time.Minute))
			// Another tenant scales its own cluster, named like scaling's uuid: its event's
			// description ends in that uuid, but it is mallory's, not scaling's.
			mallory := spec("hostile", "Running")
			mallory.Account = w.AddAccount("mallory")
			hostile := w.AddOperationEvent(mallory, "KUBERNETES.CLUSTER.SCALE", at.Add(30*time.Minute))
			hostile.Description = "Scaling Kubernetes cluster ID: " + scaling.UUID
			src, _ := load(t, w, v, Options{IncludeProjects: true})
			got := map[string]time.Time{}
			for _, c := range inventory(t, src).Clusters {
				got[c.Name] = c.OperationStarted
			}
			want := map[string]time.Time{"scaling": at, "starting": at.Add(-time.Minute), "running": {}, "removing": {}}
			if v >= mariadbtest.V4_19 { // the schema that has event.resource_id
				want["removing"] = at.Add(-2 * time.Minute)
			}
			for name, w := range want {
				if !got[name].Equal(w) {
					t.Errorf("%s: OperationStarted = %s, want %s", name, got[name], w)
				}
			}
		})
	}
}
