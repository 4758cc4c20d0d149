package database

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestDeployedUnmappedFromTheDatabase reads user_vm.user_vm_type (4.16 on): a worker whose map
// row was deleted and whose tenant renamed it is an unmapped_vm of its cluster by CloudStack's
// record that CKS deployed it; on 4.14's schema nothing shows it (the database sees the map rows,
// so there is no count gap either). Another tenant's CKS VMs, named as the cluster's nodes or
// not, are that tenant's own unmapped VMs, never the victim's.
func TestDeployedUnmappedFromTheDatabase(t *testing.T) {
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			victim := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "victim", Account: "alice", Control: 1, Workers: 2, Created: created})
			lost := victim.Workers[1]
			lost.Name = "renamed-by-tenant"
			victim.Cluster.VMMap = victim.Cluster.VMMap[:2]
			mallory := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "mallory-cluster", Account: "mallory", Control: 1, Workers: 1, Created: created})
			for _, name := range []string{victim.Control[0].Name + "0", "anything"} {
				vm := vmOf(w, mallory.Cluster, name, "Running", created)
				vm.Type = cloudstacktest.CKSNodeType
			}
			src, _ := load(t, w, v, Options{})
			inv := inventory(t, src)
			idx := collector.NewIndex(inv)
			got := map[string][]string{}
			for _, c := range inv.Clusters {
				for _, f := range collector.Compare(c, idx, collector.NodeList{}, now, 15*time.Minute).VM {
					got[c.Name] = append(got[c.Name], string(f.Kind)+" "+f.VMName)
				}
			}
			want := map[string][]string{}
			if v >= mariadbtest.V4_16 {
				want["victim"] = []string{"unmapped_vm renamed-by-tenant"}
				want["mallory-cluster"] = []string{"unmapped_vm anything", "unmapped_vm " + victim.Control[0].Name + "0"}
				slices.Sort(want["mallory-cluster"])
				slices.Sort(got["mallory-cluster"])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("VM-side findings by cluster (-want +got):\n%s", diff)
			}
		})
	}
}
