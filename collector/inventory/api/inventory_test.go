package api_test

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

var sortInventory = cmp.Options{
	cmpopts.SortSlices(func(a, b collector.Cluster) bool { return a.ID < b.ID }),
	cmpopts.SortSlices(func(a, b collector.VM) bool { return a.ID < b.ID }),
}

// ignoreRules leaves the network side's rules out of a comparison of clusters (rules_test.go
// compares them).
var ignoreRules = cmpopts.IgnoreFields(collector.Cluster{}, "Rules")

func mapped(vms ...*cloudstacktest.VM) []collector.MappedVM {
	var out []collector.MappedVM
	for _, v := range vms {
		out = append(out, collector.MappedVM{ID: v.ID, Name: v.Name, State: v.State, Created: v.Created})
	}
	return out
}

func vmOf(v *cloudstacktest.VM) collector.VM {
	return collector.VM{ID: v.ID, Name: v.Name, State: v.State, Account: v.Account, DomainID: v.DomainID,
		ProjectID: v.ProjectID, Created: v.Created}
}

// TestInventoryFields reads a small world of an isolated account cluster with an etcd node, a
// project cluster on a shared network, an imported cluster and a lone VM, and compares every
// field the adapter fills.
func TestInventoryFields(t *testing.T) {
	var prod, team cks
	var small *cloudstacktest.ServiceOffering
	var imported *cloudstacktest.Cluster
	var bastion *cloudstacktest.VM
	s := startFake(t, func(w *cloudstacktest.World) {
		c := accountCluster("prod")
		c.IPAddress, c.IPAddressID = "203.0.113.10", "40000000-0000-4000-8000-000000000001"
		prod = addCKS(w, c, 1, 1, 1)
		small = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "small"})
		prod.cluster.ServiceOfferingID = small.ID
		w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: c.IPAddressID, IPAddress: c.IPAddress,
			PublicPort: 2222, PrivatePort: 22, VirtualMachineID: prod.vms[0].ID, NetworkID: c.NetworkID, Account: "acme"})

		p := accountCluster("team-app")
		p.State, p.Account, p.ProjectID, p.Project = "Alert", "PrjAcct-team-1", projectID, "team"
		team = addCKS(w, p, 1, 1, 0)

		imported = w.AddCluster(cloudstacktest.Cluster{Name: "imported", State: "Running", ClusterType: "ExternalManaged",
			ZoneID: zoneID, ZoneName: "zone1", Account: "acme", DomainID: domainID, Domain: "ROOT", Created: created})
		bastion = w.AddVM(cloudstacktest.VM{Name: "bastion", State: "Stopped", Account: "acme", DomainID: domainID,
			Created: created})
	})

	got := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: true}))

	prodMapped := mapped(prod.vms...)
	prodMapped[2].Etcd = true // prod-etcd-1-<hex>
	want := collector.Inventory{
		Clusters: []collector.Cluster{
			{ID: prod.cluster.ID, Name: "prod", State: "Running", ClusterType: "CloudManaged", ZoneID: zoneID,
				ZoneName: "zone1", Account: "acme", DomainID: domainID, Domain: "ROOT", NetworkID: "net-prod",
				Created: created, ControlNodes: 1, WorkerNodes: 1, EtcdNodes: 1, Mapped: prodMapped,
				SSH:       collector.SSHTarget{Host: "203.0.113.10", Port: 2222},
				Offerings: append(nodes(small.ID, small.ID), collector.NodeOffering{NodeType: collector.NodeEtcd, ID: small.ID})},
			{ID: team.cluster.ID, Name: "team-app", State: "Alert", ClusterType: "CloudManaged", ZoneID: zoneID,
				ZoneName: "zone1", Account: "PrjAcct-team-1", DomainID: domainID, Domain: "ROOT", ProjectID: projectID,
				Project: "team", NetworkID: "net-team-app", Created: created, ControlNodes: 1, WorkerNodes: 1,
				Mapped: mapped(team.vms...), SSH: collector.SSHTarget{Host: team.vms[0].IPAddress, Port: 22}},
			{ID: imported.ID, Name: "imported", State: "Running", ClusterType: "ExternalManaged", ZoneID: zoneID,
				ZoneName: "zone1", Account: "acme", DomainID: domainID, Domain: "ROOT", Created: created},
		},
		VMs: []collector.VM{vmOf(prod.vms[0]), vmOf(prod.vms[1]), vmOf(prod.vms[2]), vmOf(team.vms[0]),
			vmOf(team.vms[1]), vmOf(bastion)},
		Offerings: collector.Offerings{Read: true, ByID: map[string]collector.Offering{small.ID: {ID: small.ID, Name: "small"}}},
	}
	if diff := cmp.Diff(want, got, sortInventory, ignoreRules); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
}

// TestInventoryMappedVMs checks that the VM map reads as the API shows it: rows of removed or
// nonexistent VMs are silently missing, Destroyed and Expunging VMs are there with their state.
func TestInventoryMappedVMs(t *testing.T) {
	tests := []struct {
		name       string
		change     func(w *cloudstacktest.World, c cks)
		wantMapped []int // indexes into the cluster's VMs, in map order
		wantVMs    []int // indexes of the cluster's VMs listVirtualMachines returns
		wantStates map[int]string
	}{
		{name: "every row resolves", change: func(*cloudstacktest.World, cks) {},
			wantMapped: []int{0, 1, 2}, wantVMs: []int{0, 1, 2}},
		{name: "row of a removed VM is invisible",
			change:     func(_ *cloudstacktest.World, c cks) { c.vms[1].Removed, c.vms[1].State = true, "Expunging" },
			wantMapped: []int{0, 2}, wantVMs: []int{0, 2}},
		{name: "row of a nonexistent id is invisible",
			change:     func(_ *cloudstacktest.World, c cks) { c.cluster.VMMap = append(c.cluster.VMMap, 9999) },
			wantMapped: []int{0, 1, 2}, wantVMs: []int{0, 1, 2}},
		{name: "destroyed VM is mapped with its state",
			change:     func(_ *cloudstacktest.World, c cks) { c.vms[2].State = "Destroyed" },
			wantMapped: []int{0, 1, 2}, wantVMs: []int{0, 1, 2}, wantStates: map[int]string{2: "Destroyed"}},
		{name: "expunging VM not yet removed is mapped",
			change:     func(_ *cloudstacktest.World, c cks) { c.vms[1].State = "Expunging" },
			wantMapped: []int{0, 1, 2}, wantVMs: []int{0, 1, 2}, wantStates: map[int]string{1: "Expunging"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cks
			s := startFake(t, func(w *cloudstacktest.World) {
				c = addCKS(w, accountCluster("prod"), 1, 2, 0)
				tt.change(w, c)
			})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			if len(inv.Clusters) != 1 {
				t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
			}
			var wantMapped []collector.MappedVM
			for _, i := range tt.wantMapped {
				m := mapped(c.vms[i])[0]
				m.State = "Running"
				if st, ok := tt.wantStates[i]; ok {
					m.State = st
				}
				wantMapped = append(wantMapped, m)
			}
			if diff := cmp.Diff(wantMapped, inv.Clusters[0].Mapped); diff != "" {
				t.Errorf("Mapped (-want +got):\n%s", diff)
			}
			var wantIDs, gotIDs []string
			for _, i := range tt.wantVMs {
				wantIDs = append(wantIDs, c.vms[i].ID)
			}
			for _, v := range inv.VMs {
				gotIDs = append(gotIDs, v.ID)
			}
			if diff := cmp.Diff(wantIDs, gotIDs, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("VM ids (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInventoryListAllIncludesAccounts checks that each cluster and VM is held once whether the
// projectid=-1 pass returns project resources only (older CloudStack) or account ones as well.
func TestInventoryListAllIncludesAccounts(t *testing.T) {
	for _, includesAccounts := range []bool{false, true} {
		t.Run(map[bool]string{false: "project resources only", true: "account resources again"}[includesAccounts], func(t *testing.T) {
			var wantClusters, wantVMs []string
			s := startFake(t, func(w *cloudstacktest.World) {
				p := accountCluster("team")
				p.Account, p.ProjectID, p.Project = "PrjAcct-team-1", projectID, "team"
				for _, c := range []cks{addCKS(w, accountCluster("prod"), 1, 2, 0), addCKS(w, p, 1, 1, 0)} {
					wantClusters = append(wantClusters, c.cluster.ID)
					for _, v := range c.vms {
						wantVMs = append(wantVMs, v.ID)
					}
				}
				wantVMs = append(wantVMs, w.AddVM(cloudstacktest.VM{Name: "lone", State: "Running", Account: "acme"}).ID)
			})
			s.SetListAllIncludesAccounts(includesAccounts)

			inv := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: true}))

			var gotClusters, gotVMs []string
			for _, c := range inv.Clusters {
				gotClusters = append(gotClusters, c.ID)
			}
			for _, v := range inv.VMs {
				gotVMs = append(gotVMs, v.ID)
			}
			for _, ids := range [][]string{wantClusters, wantVMs, gotClusters, gotVMs} {
				sort.Strings(ids)
			}
			if diff := cmp.Diff(wantClusters, gotClusters); diff != "" {
				t.Errorf("cluster ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantVMs, gotVMs); diff != "" {
				t.Errorf("VM ids (-want +got):\n%s", diff)
			}
		})
	}
}
