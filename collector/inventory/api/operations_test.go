package api_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestOperationStarted reads when the operation of a cluster in an operation state started from
// CloudStack's events, on every release line: the latest Scheduled event of the state's command
// that names the cluster (the description's uuid, or 4.21's resource for the node commands); an
// older operation's event, another cluster's, another command's and the end of an operation do not
// count; a cluster in Running is not looked up; and the answer is asked for once while the
// cluster stays in the state.
func TestOperationStarted(t *testing.T) {
	scheduled := created.Add(48 * time.Hour)
	for _, release := range []string{cloudstacktest.Release414, cloudstacktest.Release415, cloudstacktest.Release416,
		cloudstacktest.Release418, cloudstacktest.Release420, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			var scaling, running, other, removing *cloudstacktest.Cluster
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				scaling = addCKS(w, accountCluster("scaling"), 1, 1, 0).cluster
				running = addCKS(w, accountCluster("running"), 1, 1, 0).cluster
				other = addCKS(w, accountCluster("other"), 1, 1, 0).cluster
				removing = addCKS(w, accountCluster("removing"), 1, 1, 0).cluster
				scaling.State, other.State, removing.State = "Scaling", "Scaling", "RemovingNodes"
				for _, e := range []cloudstacktest.Event{
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + scaling.ID, Created: scheduled.Add(-24 * time.Hour)}.Of(scaling),
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + scaling.ID, Created: scheduled}.Of(scaling),
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", State: "Completed", Description: "Scaling Kubernetes cluster ID: " + scaling.ID, Created: scheduled.Add(time.Minute)}.Of(scaling),
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.UPGRADE", Description: "Upgrading Kubernetes cluster ID: " + scaling.ID, Created: scheduled.Add(time.Hour)}.Of(scaling),
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + other.ID, Created: scheduled.Add(2 * time.Hour)}.Of(other),
					cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + running.ID, Created: scheduled}.Of(running),
					// Another tenant scales its own cluster, named like scaling's uuid (4.20 on, the
					// description names the cluster): its event matches the keyword but is not
					// scaling's, and must not move scaling's time.
					{Type: "KUBERNETES.CLUSTER.SCALE", Account: "mallory", DomainID: domainID, Domain: "ROOT",
						Description: "Scaling Kubernetes cluster " + scaling.ID + " (ID: 7c7c7c7c-0000-4000-8000-000000000001)", Created: scheduled.Add(30 * time.Minute)},
				} {
					w.AddEvent(e)
				}
				if release == cloudstacktest.Release422 { // removeNodesFromKubernetesCluster arrives in 4.21
					w.AddEvent(cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.NODES.REMOVE", Description: fmt.Sprintf("Removing 1 nodes from the Kubernetes Cluster with ID: %d", removing.InternalID),
						ResourceID: removing.ID, ResourceType: "KubernetesCluster", Created: scheduled.Add(-time.Hour)}.Of(removing))
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
				if !got["running"].IsZero() {
					t.Errorf("cycle %d: running: OperationStarted = %s, want none", cycle, got["running"])
				}
				// The node commands name their cluster as the event's resource (4.21 on, the
				// fake's 4.22 line; the description holds the internal id).
				want := time.Time{}
				if release == cloudstacktest.Release422 {
					want = scheduled.Add(-time.Hour)
				}
				if !got["removing"].Equal(want) {
					t.Errorf("cycle %d: removing: OperationStarted = %s, want %s", cycle, got["removing"], want)
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
			if asked != 3 {
				t.Errorf("listEvents asked %d times in two cycles, want 3: once per cluster in an operation state", asked)
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
