package database

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// releaseLines are the CloudStack release lines with CKS, each with the shape of its clusters:
// the schema (engine/schema/src/main/resources/META-INF/db/schema-41310to41400.sql at 4.14.0.0,
// schema-41520to41600.sql at 4.16.0.0, schema-41810to41900.sql at 4.19.0.0,
// schema-42010to42100.sql at 4.21.0.0), the node names (-master before 4.16.0.0,
// KubernetesClusterStartWorker at 4.15.2.0), the login user (controlNodeLoginUser "core" written
// for older clusters by schema-41600to41610.sql at 4.16.1.0; none before), a VPC tier reached
// through a public IP of the cluster's own (4.18.1+) and etcd nodes (4.21+).
var releaseLines = []struct {
	release string
	pre416  bool   // the cluster was created with -master names
	user    string // its controlNodeLoginUser detail
	vpc     bool   // on a VPC tier: the SSH rule is on a public IP that is not the source NAT
	etcd    int
}{
	{release: "4.14", pre416: true},
	{release: "4.15", pre416: true},
	{release: "4.16", pre416: true, user: "core"}, // upgraded to 4.16.1
	{release: "4.17", user: "cloud"},
	{release: "4.18", user: "cloud", vpc: true},
	{release: "4.20", user: "cloud"},
	{release: "4.22", user: "cloud", etcd: 1},
}

// TestReleaseLines reads a cluster of every release line from a database of that release's
// schema and checks, for a drift-free cluster and for each kind of drift the database shows, the
// exact findings and where kubectl is reached, as whom.
func TestReleaseLines(t *testing.T) {
	drifts := []struct {
		name string
		edit func(w *cloudstacktest.World, s *cloudstacktest.ClusterSet) (vm []brief, node []brief)
	}{
		{name: "drift-free", edit: func(*cloudstacktest.World, *cloudstacktest.ClusterSet) ([]brief, []brief) {
			return nil, nil
		}},
		{name: "unmapped_vm", edit: func(w *cloudstacktest.World, s *cloudstacktest.ClusterSet) ([]brief, []brief) {
			name := s.Workers[0].Name + "-1" // a worker's name that was taken
			if s.Control[0].Name == "old-master" {
				name = "old-master-1" // a stray control node of a pre-4.16 cluster
			}
			v := vmOf(w, s.Cluster, name, "Running", created)
			return []brief{{Kind: collector.KindUnmappedVM, VMID: v.ID, VMName: v.Name}}, nil
		}},
		{name: "mapped_vm_expunged", edit: func(_ *cloudstacktest.World, s *cloudstacktest.ClusterSet) ([]brief, []brief) {
			v := s.Workers[1]
			v.State = "Destroyed"
			// Its node still matches a VM of the map: no node_without_vm.
			return []brief{{Kind: collector.KindMappedVMExpunged, VMID: v.ID, VMName: v.Name, InternalID: v.InternalID}}, nil
		}},
		{name: "mapped_vm_missing", edit: func(_ *cloudstacktest.World, s *cloudstacktest.ClusterSet) ([]brief, []brief) {
			s.Cluster.VMMap = append(s.Cluster.VMMap, 999)
			return []brief{{Kind: collector.KindMappedVMMissing, VMID: "999", InternalID: 999}}, nil
		}},
	}
	for _, line := range releaseLines {
		for _, d := range drifts {
			t.Run(line.release+"/"+d.name, func(t *testing.T) {
				w := &cloudstacktest.World{Release: line.release}
				s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "old", Account: "alice", Control: 1, Workers: 2, Etcd: line.etcd,
					Created: created, Pre416: line.pre416, LoginUser: line.user})
				wantHost, wantPort := s.IP.Address, 2222
				if line.vpc {
					// The tier's own public IP carries the rules; the VPC's source NAT none.
					ip := &cloudstacktest.PublicIP{ID: "ip-tier", Address: "198.51.100.7", NetworkID: s.Cluster.NetworkID, Account: "alice"}
					w.PublicIPs = append(w.PublicIPs, ip)
					for _, r := range s.Rules {
						r.IPAddressID, r.IPAddress = ip.ID, ip.Address
					}
					wantHost = ip.Address
				}
				wantVM, wantNode := d.edit(w, s)
				rows := mariadbtest.Start(t).NewDatabaseOf(t, w) // the release's schema
				src := newSource(t, Options{DSN: rows.ReaderDSN(), IncludeProjects: true})
				inv := inventory(t, src)

				var nodes []string
				for _, v := range append(s.Control, s.Workers...) {
					nodes = append(nodes, v.Name)
				}
				vm, node := findings(t, inv, s.Cluster.ID, nodes)
				if diff := cmp.Diff(wantVM, vm); diff != "" {
					t.Errorf("VM side (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantNode, node); diff != "" {
					t.Errorf("node side (-want +got):\n%s", diff)
				}
				want := collector.SSHTarget{Host: wantHost, Port: wantPort, User: line.user}
				if diff := cmp.Diff(want, inv.Clusters[0].SSH); diff != "" {
					t.Errorf("SSH target (-want +got):\n%s", diff)
				}
				if got := inv.Clusters[0].ClusterType; got != "CloudManaged" {
					t.Errorf("cluster type %q, want CloudManaged", got)
				}
			})
		}
	}
}
