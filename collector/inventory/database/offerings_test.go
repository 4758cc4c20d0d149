package database

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestOfferingsFromTheDatabase reads the clusters' service offerings on every schema: the
// cluster's (service_offering_id), and from 4.21 each node type's own; the offering's uuid, name
// and removed from disk_offering before 4.17 and from service_offering since, with its state
// (Inactive) since 4.17. Unlike the API, the database shows a removed offering, also a node
// type's. An account without SELECT on service_offering reads everything else and no offering.
func TestOfferingsFromTheDatabase(t *testing.T) {
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_17, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			small := w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "small"})
			retired := w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "retired", State: "Inactive"})
			gone := w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "gone", Removed: true})
			etcd := w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "etcd"})
			w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "unused"})
			for name, o := range map[string]*cloudstacktest.ServiceOffering{"plain": small, "on-retired": retired, "on-gone": gone} {
				w.BuildCluster(cloudstacktest.ClusterSpec{Name: name, Account: "alice", Control: 1, Workers: 1, Created: created, Offering: o.ID})
			}
			k := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "per-type", Account: "alice", Control: 1, Workers: 1, Etcd: 1, Created: created, Offering: small.ID}).Cluster
			k.ControlOfferingID, k.WorkerOfferingID, k.EtcdOfferingID = retired.ID, gone.ID, etcd.ID
			w.BuildCluster(cloudstacktest.ClusterSpec{Name: "none", Account: "alice", Control: 1, Workers: 1, Created: created})

			src, d := load(t, w, v, Options{})
			inv := inventory(t, src)
			got := map[string][]collector.NodeOffering{}
			for _, c := range inv.Clusters {
				got[c.Name] = c.Offerings
			}
			both := func(id string) []collector.NodeOffering {
				return []collector.NodeOffering{{NodeType: collector.NodeControl, ID: id}, {NodeType: collector.NodeWorker, ID: id}}
			}
			want := map[string][]collector.NodeOffering{"plain": both(small.ID), "on-retired": both(retired.ID), "on-gone": both(gone.ID),
				"per-type": both(small.ID), "none": nil}
			listed := map[string]collector.Offering{"small": {ID: small.ID, Name: "small"}, "retired": {ID: retired.ID, Name: "retired"},
				"gone": {ID: gone.ID, Name: "gone", Removed: true}}
			if v >= mariadbtest.V4_17 {
				listed["retired"] = collector.Offering{ID: retired.ID, Name: "retired", Inactive: true}
			}
			if v >= mariadbtest.V4_21 {
				want["per-type"] = []collector.NodeOffering{{NodeType: collector.NodeControl, ID: retired.ID},
					{NodeType: collector.NodeWorker, ID: gone.ID}, {NodeType: collector.NodeEtcd, ID: etcd.ID}}
				listed["etcd"] = collector.Offering{ID: etcd.ID, Name: "etcd"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("clusters' offerings (-want +got):\n%s", diff)
			}
			byName := map[string]collector.Offering{}
			for _, o := range inv.Offerings.ByID {
				byName[o.Name] = o
			}
			if diff := cmp.Diff(listed, byName); diff != "" || !inv.Offerings.Read {
				t.Errorf("offerings read (%v; -want +got):\n%s", inv.Offerings.Read, diff)
			}

			without := newSource(t, Options{DSN: grantedAccount(t, d, "_nooffer", "service_offering", "disk_offering")})
			inv = inventory(t, without)
			if inv.Offerings.Read || len(inv.Clusters) != len(want) {
				t.Errorf("without SELECT on the offerings: %d clusters, offerings %+v; want every cluster and no offering read", len(inv.Clusters), inv.Offerings)
			}
		})
	}
}
