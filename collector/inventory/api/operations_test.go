package api_test

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestOperationStarted reads when the operation of a cluster in an operation state started from
// CloudStack's events, on every release line: the latest Scheduled event of the state's command
// that names the cluster (as its resource from 4.19.1.0, the fake's 4.20 line, and for 4.21's node
// commands; by the description's uuid before); an older operation's event, another cluster's,
// another command's, another tenant's and the end of an operation do not count; a cluster in
// Running is not looked up; and the answer is asked for once while the cluster stays in the state.
func TestOperationStarted(t *testing.T) {
	scheduled := created.Add(48 * time.Hour)
	for _, release := range []string{cloudstacktest.Release414, cloudstacktest.Release415, cloudstacktest.Release416,
		cloudstacktest.Release418, cloudstacktest.Release420, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			var scaling, running, other, removing, starting, stoppedScale *cloudstacktest.Cluster
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				event := func(c *cloudstacktest.Cluster, eventType string, at time.Time) *cloudstacktest.Event {
					return w.AddEvent(w.OperationEvent(c, eventType, at))
				}
				scaling = addCKS(w, accountCluster("scaling"), 1, 1, 0).cluster
				running = addCKS(w, accountCluster("running"), 1, 1, 0).cluster
				other = addCKS(w, accountCluster("other"), 1, 1, 0).cluster
				removing = addCKS(w, accountCluster("removing"), 1, 1, 0).cluster
				starting = addCKS(w, accountCluster("starting"), 1, 1, 0).cluster
				stoppedScale = addCKS(w, accountCluster("stopped-scale"), 1, 1, 0).cluster
				stoppedScale.State = "ScalingStoppedCluster" // a Stopped cluster's offerings scaled (4.20.2.0 on)
				event(stoppedScale, "KUBERNETES.CLUSTER.SCALE", scheduled.Add(-5*time.Hour))
				scaling.State, other.State, removing.State, starting.State = "Scaling", "Scaling", "RemovingNodes", "Starting"
				event(scaling, "KUBERNETES.CLUSTER.SCALE", scheduled.Add(-24*time.Hour))
				event(scaling, "KUBERNETES.CLUSTER.SCALE", scheduled)
				event(scaling, "KUBERNETES.CLUSTER.SCALE", scheduled.Add(time.Minute)).State = "Completed"
				event(scaling, "KUBERNETES.CLUSTER.UPGRADE", scheduled.Add(time.Hour))
				event(other, "KUBERNETES.CLUSTER.SCALE", scheduled.Add(2*time.Hour))
				event(running, "KUBERNETES.CLUSTER.SCALE", scheduled)
				// The create names the internal id: through the API it is found by its resource
				// only (4.19.1.0 on).
				event(starting, "KUBERNETES.CLUSTER.CREATE", scheduled.Add(-3*time.Hour))
				// Another tenant scales its own cluster, named like scaling's uuid (4.20 on, the
				// description names the cluster): its event matches the keyword but is not
				// scaling's, and must not move scaling's time.
				w.AddEvent(cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Account: "mallory", DomainID: domainID, Domain: "ROOT",
					Description: "Scaling Kubernetes cluster " + scaling.ID + " (ID: 7c7c7c7c-0000-4000-8000-000000000001)", Created: scheduled.Add(30 * time.Minute)})
				// And asks to scale scaling itself: from 4.19.1.0 CloudStack records the Scheduled
				// event, with scaling as its resource, before the access check refuses the job.
				hostile := w.OperationEvent(scaling, "KUBERNETES.CLUSTER.SCALE", scheduled.Add(40*time.Minute))
				hostile.Account, hostile.ProjectID = "mallory", ""
				w.AddEvent(hostile)
				if release == cloudstacktest.Release422 { // removeNodesFromKubernetesCluster arrives in 4.21
					event(removing, "KUBERNETES.CLUSTER.NODES.REMOVE", scheduled.Add(-time.Hour))
				}
			})
			src := newSource(t, s, api.Options{})
			for cycle := range 2 {
				inv := mustInventory(t, src)
				got := map[string]time.Time{}
				for _, c := range inv.Clusters {
					got[c.Name] = c.OperationStarted
				}
				if !got["scaling"].Equal(scheduled) {
					t.Errorf("cycle %d: scaling: OperationStarted = %s, want the latest scale's %s", cycle, got["scaling"], scheduled)
				}
				if !got["other"].Equal(scheduled.Add(2 * time.Hour)) {
					t.Errorf("cycle %d: other: OperationStarted = %s", cycle, got["other"])
				}
				if !got["stopped-scale"].Equal(scheduled.Add(-5 * time.Hour)) {
					t.Errorf("cycle %d: stopped-scale: OperationStarted = %s, want its scale's", cycle, got["stopped-scale"])
				}
				if !got["running"].IsZero() {
					t.Errorf("cycle %d: running: OperationStarted = %s, want none", cycle, got["running"])
				}
				// The node commands name their cluster as the event's resource (4.21 on, the
				// fake's 4.22 line; the description holds the internal id), and so does the
				// create from 4.19.1.0.
				wantRemoving, wantStarting := time.Time{}, time.Time{}
				if release == cloudstacktest.Release422 {
					wantRemoving = scheduled.Add(-time.Hour)
				}
				if release >= cloudstacktest.Release420 {
					wantStarting = scheduled.Add(-3 * time.Hour)
				}
				if !got["removing"].Equal(wantRemoving) {
					t.Errorf("cycle %d: removing: OperationStarted = %s, want %s", cycle, got["removing"], wantRemoving)
				}
				if !got["starting"].Equal(wantStarting) {
					t.Errorf("cycle %d: starting: OperationStarted = %s, want %s", cycle, got["starting"], wantStarting)
				}
			}
			asked := 0
			for _, c := range s.Calls() {
				if c.Command == "listEvents" {
					asked++
					if c.Params.Get("listall") != "true" || c.Params.Get("page") == "" || c.Params.Get("pagesize") == "" {
						t.Errorf("listEvents %v: not paged with listall", c.Params)
					}
				}
			}
			// Once per cluster in an operation state and kind of event, in the first cycle only:
			// by resource, then by keyword where that found none (starting: the start, which has
			// no event, both ways, and the create by resource; before 4.19.1.0 scaling and other
			// by keyword too).
			want := 7
			if release < cloudstacktest.Release420 {
				want = 10
			}
			if asked != want {
				t.Errorf("listEvents asked %d times in two cycles, want %d", asked, want)
			}
		})
	}
}

// TestOperationStartedLookupFails: a listEvents the role does not allow leaves the time unknown,
// never fails the inventory, and is asked again at the next cycle.
func TestOperationStartedLookupFails(t *testing.T) {
	s := startFake(t, func(w *cloudstacktest.World) {
		c := addCKS(w, accountCluster("scaling"), 1, 1, 0).cluster
		c.State = "Scaling"
		w.AddEvent(cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + c.ID, Created: created}.Of(c))
	})
	s.SetFault("listEvents", cloudstacktest.Fault{Status: 432, Times: 1})
	src := newSource(t, s, api.Options{})
	if inv := mustInventory(t, src); !inv.Clusters[0].OperationStarted.IsZero() {
		t.Errorf("OperationStarted = %s after a refused look-up", inv.Clusters[0].OperationStarted)
	}
	if inv := mustInventory(t, src); !inv.Clusters[0].OperationStarted.Equal(created) {
		t.Errorf("OperationStarted = %s at the next cycle, want %s", inv.Clusters[0].OperationStarted, created)
	}
}
