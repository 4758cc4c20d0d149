package api_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestInventoryOfferings reads the clusters' service offerings and the cloud's offerings through
// each release line's answers: serviceofferingid on every line, also for a removed offering;
// the node types' own from 4.21 (the 4.22 line), left out of the answer once removed; inactive
// offerings listed as such from 4.19.1.0 (state=all, the 4.20 and 4.22 lines), not listed at all
// on the 4.18 line, where offerings have a state the list does not take. A cluster's own offering
// that is not listed is taken as removed, named as the cluster answer names it. One
// listServiceOfferings call a cycle, however many clusters.
func TestInventoryOfferings(t *testing.T) {
	type want struct {
		offerings map[string][]collector.NodeOffering // by cluster name
		listed    map[string]collector.Offering       // by offering name
	}
	for _, tt := range []struct {
		release string
		want    func(small, retired, gone, etcd string) want
	}{
		{cloudstacktest.Release416, func(small, retired, gone, etcd string) want {
			return want{offerings: map[string][]collector.NodeOffering{
				"plain": nodes(small, small), "on-retired": nodes(retired, retired), "on-gone": nodes(gone, gone), "per-type": nodes(small, small)},
				listed: map[string]collector.Offering{"small": {ID: small, Name: "small"}, "retired": {ID: retired, Name: "retired"}, "etcd": {ID: etcd, Name: "etcd"}, "gone": {ID: gone, Name: "gone", Removed: true}}}
		}},
		{cloudstacktest.Release418, func(small, retired, gone, etcd string) want {
			return want{offerings: map[string][]collector.NodeOffering{
				"plain": nodes(small, small), "on-retired": nodes(retired, retired), "on-gone": nodes(gone, gone), "per-type": nodes(small, small)},
				listed: map[string]collector.Offering{"small": {ID: small, Name: "small"}, "etcd": {ID: etcd, Name: "etcd"},
					"retired": {ID: retired, Name: "retired", Removed: true}, "gone": {ID: gone, Name: "gone", Removed: true}}}
		}},
		{cloudstacktest.Release420, func(small, retired, gone, etcd string) want {
			return want{offerings: map[string][]collector.NodeOffering{
				"plain": nodes(small, small), "on-retired": nodes(retired, retired), "on-gone": nodes(gone, gone), "per-type": nodes(small, small)},
				listed: map[string]collector.Offering{"small": {ID: small, Name: "small"}, "retired": {ID: retired, Name: "retired", Inactive: true}, "etcd": {ID: etcd, Name: "etcd"}, "gone": {ID: gone, Name: "gone", Removed: true}}}
		}},
		{cloudstacktest.Release422, func(small, retired, gone, etcd string) want {
			return want{offerings: map[string][]collector.NodeOffering{
				"plain": nodes(small, small), "on-retired": nodes(retired, retired), "on-gone": nodes(gone, gone),
				// the worker's own offering is removed: the answer leaves it out, so the worker
				// reads as having the cluster's
				"per-type": append(nodes(retired, small), collector.NodeOffering{NodeType: collector.NodeEtcd, ID: etcd})},
				listed: map[string]collector.Offering{"small": {ID: small, Name: "small"}, "retired": {ID: retired, Name: "retired", Inactive: true},
					"etcd": {ID: etcd, Name: "etcd"}, "gone": {ID: gone, Name: "gone", Removed: true}}}
		}},
	} {
		t.Run(tt.release, func(t *testing.T) {
			var small, retired, gone, etcd *cloudstacktest.ServiceOffering
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				small = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "small"})
				retired = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "retired", State: "Inactive"})
				gone = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "gone", Removed: true})
				etcd = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "etcd"})
				for name, o := range map[string]*cloudstacktest.ServiceOffering{"plain": small, "on-retired": retired, "on-gone": gone} {
					addCKS(w, accountCluster(name), 1, 1, 0).cluster.ServiceOfferingID = o.ID
				}
				k := addCKS(w, accountCluster("per-type"), 1, 1, 1)
				k.cluster.ServiceOfferingID, k.cluster.ControlOfferingID = small.ID, retired.ID
				k.cluster.WorkerOfferingID, k.cluster.EtcdOfferingID = gone.ID, etcd.ID
			})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			w := tt.want(small.ID, retired.ID, gone.ID, etcd.ID)
			got := map[string][]collector.NodeOffering{}
			for _, c := range inv.Clusters {
				got[c.Name] = c.Offerings
			}
			if diff := cmp.Diff(w.offerings, got); diff != "" {
				t.Errorf("clusters' offerings (-want +got):\n%s", diff)
			}
			listed := map[string]collector.Offering{}
			for _, o := range inv.Offerings.ByID {
				listed[o.Name] = o
			}
			if !inv.Offerings.Read {
				t.Error("offerings not read")
			}
			if diff := cmp.Diff(w.listed, listed); diff != "" {
				t.Errorf("listed offerings (-want +got):\n%s", diff)
			}
			if n := s.CallCount("listServiceOfferings"); n != 1 {
				t.Errorf("%d listServiceOfferings calls, want 1 for 4 clusters", n)
			}
		})
	}
}

// nodes is the control and worker nodes' offerings.
func nodes(control, worker string) []collector.NodeOffering {
	return []collector.NodeOffering{{NodeType: collector.NodeControl, ID: control}, {NodeType: collector.NodeWorker, ID: worker}}
}

// TestOfferingsUnreadable: a failed listServiceOfferings (a role without it) does not fail the
// inventory; the cycle has no offerings (Read false), which is logged once at WARN, and once at
// INFO when a listing works again. A re-check of one cluster reuses the last sweep's listing
// instead of listing the cloud's offerings again.
func TestOfferingsUnreadable(t *testing.T) {
	s := startFake(t, func(w *cloudstacktest.World) {
		o := w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "small"})
		addCKS(w, accountCluster("plain"), 1, 1, 0).cluster.ServiceOfferingID = o.ID
	})
	var log bytes.Buffer
	src := newSource(t, s, api.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	s.SetFault("listServiceOfferings", cloudstacktest.Fault{Status: 432})
	for range 2 {
		inv := mustInventory(t, src)
		if inv.Offerings.Read || len(inv.Clusters) != 1 {
			t.Fatalf("offerings %+v with %d clusters, want none read and the cluster", inv.Offerings, len(inv.Clusters))
		}
	}
	if n := strings.Count(log.String(), "Could not list the service offerings"); n != 1 {
		t.Errorf("%d WARN lines for two failed listings, want 1:\n%s", n, log.String())
	}
	s.ClearFaults()
	inv := mustInventory(t, src)
	if !inv.Offerings.Read || len(inv.Offerings.ByID) != 1 || !strings.Contains(log.String(), "failed_listings=2") {
		t.Errorf("after the fault: offerings %+v, log:\n%s", inv.Offerings, log.String())
	}
	before := s.CallCount("listServiceOfferings")
	one, err := src.ClusterInventory(t.Context(), inv.Clusters[0])
	if err != nil {
		t.Fatal(err)
	}
	if !one.Offerings.Read || len(one.Offerings.ByID) != 1 || s.CallCount("listServiceOfferings") != before {
		t.Errorf("re-check: offerings %+v, %d more calls; want the sweep's, none", one.Offerings, s.CallCount("listServiceOfferings")-before)
	}
}
