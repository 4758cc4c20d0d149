package api_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestInventoryVMType reads listVirtualMachines' vmtype (UserVmResponse, since 4.20.0): a worker
// whose map row is gone and whose tenant renamed it is, from 4.20, an unmapped_vm of its cluster
// by CloudStack's record that CKS deployed it; before, only the count gap shows. Another
// tenant's CKS VMs, named as the cluster's nodes or not, are never the cluster's.
func TestInventoryVMType(t *testing.T) {
	now := created.Add(24 * time.Hour)
	for _, tt := range []struct {
		release string
		want    []collector.Kind
	}{
		{cloudstacktest.Release418, []collector.Kind{collector.KindVMMapIncomplete}},
		{cloudstacktest.Release420, []collector.Kind{collector.KindUnmappedVM}},
		{cloudstacktest.Release422, []collector.Kind{collector.KindUnmappedVM}},
	} {
		t.Run(tt.release, func(t *testing.T) {
			var lost *cloudstacktest.VM
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				k := addCKS(w, accountCluster("victim"), 1, 2, 0)
				for _, vm := range k.vms {
					vm.Type = cloudstacktest.CKSNodeType
				}
				lost = k.vms[2]
				lost.Name = "renamed-by-tenant"
				k.cluster.VMMap = k.cluster.VMMap[:2]
				mallory := accountCluster("mallory-cluster")
				mallory.Account = "mallory"
				m := addCKS(w, mallory, 1, 1, 0)
				for _, vm := range m.vms {
					vm.Type = cloudstacktest.CKSNodeType
				}
				for _, name := range []string{"victim-node-18fe6e5a5ff", "anything"} {
					w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Account: "mallory", DomainID: domainID, Domain: "ROOT",
						Type: cloudstacktest.CKSNodeType, Created: created}) // in no map: mallory's own unmapped VMs
				}
			})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			i := slices.IndexFunc(inv.VMs, func(v collector.VM) bool { return v.ID == lost.ID })
			if i < 0 || inv.VMs[i].CKSNode != (tt.release >= cloudstacktest.Release420) {
				t.Fatalf("lost VM %+v: CKSNode should be read from vmtype from 4.20 only", inv.VMs[i])
			}
			idx := collector.NewIndex(inv)
			for _, c := range inv.Clusters {
				res := collector.Compare(c, idx, collector.NodeList{}, now, 15*time.Minute)
				var got []collector.Kind
				for _, f := range res.VM {
					got = append(got, f.Kind)
					if f.Kind == collector.KindUnmappedVM && c.Name == "victim" && f.VMID != lost.ID {
						t.Errorf("%s: unmapped_vm %s (%s) is not its VM", c.Name, f.VMName, f.VMID)
					}
				}
				want := tt.want
				if c.Name != "victim" {
					want = nil
					if tt.release >= cloudstacktest.Release420 { // mallory's two unmapped CKS VMs
						want = []collector.Kind{collector.KindUnmappedVM, collector.KindUnmappedVM}
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: VM-side kinds (-want +got):\n%s", c.Name, diff)
				}
			}
		})
	}
}
