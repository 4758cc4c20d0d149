package database

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// baseline is what the API source reports for the report world, plus what only the database
// shows: internal ids and MapRowsVisible.
func baseline(rw reportWorld) collector.Inventory {
	ctl, w1, w2 := rw.test.Control[0], rw.test.Workers[0], rw.test.Workers[1]
	return collector.Inventory{
		Clusters: []collector.Cluster{{
			ID: testUUID, Name: "test", State: "Running", ClusterType: "CloudManaged",
			ZoneID: zoneUUID, ZoneName: "zone1", Account: "alice", DomainID: rootUUID, Domain: "ROOT",
			NetworkID: networkUUID, Created: created,
			ControlNodes: 1, WorkerNodes: 2,
			Mapped: []collector.MappedVM{
				{ID: "00000007-0000-4000-8000-000000000011", InternalID: 11, Name: ctl.Name, State: "Running", Created: created},
				{ID: "00000007-0000-4000-8000-000000000012", InternalID: 12, Name: w1.Name, State: "Running", Created: created},
				{ID: "00000007-0000-4000-8000-000000000013", InternalID: 13, Name: w2.Name, State: "Running", Created: created},
			},
			MapRowsVisible: true,
			SSH:            collector.SSHTarget{Host: "203.0.113.2", Port: 2222},
		}},
		VMs: []collector.VM{
			{ID: "00000007-0000-4000-8000-000000000011", Name: ctl.Name, State: "Running", Account: "alice", DomainID: rootUUID, Created: created},
			{ID: "00000007-0000-4000-8000-000000000012", Name: w1.Name, State: "Running", Account: "alice", DomainID: rootUUID, Created: created},
			{ID: "00000007-0000-4000-8000-000000000013", Name: w2.Name, State: "Running", Account: "alice", DomainID: rootUUID, Created: created},
		},
	}
}

// TestBaseline is scenario 1: the VM names are vm_instance.name (not instance_name, not
// display_name), every field is the API's, and the check finds nothing, on every schema version.
func TestBaseline(t *testing.T) {
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			rw := newReportWorld()
			s, _ := load(t, rw.w, v, Options{})
			inv := inventory(t, s)
			if diff := cmp.Diff(baseline(rw), inv); diff != "" {
				t.Errorf("inventory (-want +got):\n%s", diff)
			}
			if ctl := rw.test.Control[0]; ctl.Name == ctl.InstanceName || ctl.Name == ctl.DisplayName {
				t.Fatalf("the world must give the VM distinct name, instance_name and display_name")
			}
			vm, node := findings(t, inv, testUUID, nodeNames(rw.test.VMs()...))
			if len(vm)+len(node) != 0 {
				t.Errorf("findings: vm %v, node %v; want none", vm, node)
			}
		})
	}
}

// setup is the report world with what a scenario adds to it.
type setup struct {
	reportWorld
	other *mariadbtest.ClusterSet
	extra []*mariadbtest.VM
}

// TestScenarios are the drift scenarios of docs/scenarios.md and the variations of the source's fields,
// each asserted as the whole inventory and as the findings of the drift check.
func TestScenarios(t *testing.T) {
	tests := []struct {
		name    string
		version mariadbtest.Version
		opts    Options
		edit    func(s *setup)
		want    func(s *setup, want *collector.Inventory)
		nodes   func(s *setup) []string // Kubernetes nodes of "test"; default: its VMs
		wantVM  func(s *setup) []brief
		wantNod func(s *setup) []brief
	}{
		{
			name: "2: worker's map row deleted",
			edit: func(s *setup) { s.w.DeleteMapRow(s.test.Map[2]) },
			want: func(s *setup, want *collector.Inventory) {
				want.Clusters[0].Mapped = want.Clusters[0].Mapped[:2]
			},
			wantVM: func(s *setup) []brief {
				w2 := s.test.Workers[1]
				return []brief{{Kind: collector.KindUnmappedVM, VMID: w2.UUID, VMName: w2.Name}}
			},
		},
		{
			// Rows inserted into the test cluster's map: the VM of a node removed earlier from
			// another cluster, expunged (removed set, state Expunging), and VM id 999999.
			name: "3: map rows for an expunged VM and for VM id 999999",
			edit: func(s *setup) {
				s.other = s.w.AddCluster(mariadbtest.ClusterSpec{Name: "other", Owner: s.alice, Control: 1, Workers: 1, Created: created.Add(-day)})
				gone := s.w.AddVM("other-node-1a1c2dc4f71", "Expunging", s.alice, created.Add(-day))
				gone.Removed = true
				s.extra = append(s.extra, gone)
				s.w.AddMapRow(s.test.Cluster, gone.ID)
				s.w.AddMapRow(s.test.Cluster, 999999)
			},
			want: func(s *setup, want *collector.Inventory) {
				gone := s.extra[0]
				c := &want.Clusters[0]
				c.Mapped = append(c.Mapped,
					collector.MappedVM{ID: gone.UUID, InternalID: gone.ID, Name: "other-node-1a1c2dc4f71", State: "Expunging", Created: gone.Created, Removed: true},
					collector.MappedVM{InternalID: 999999, Missing: true})
				o := s.other
				want.Clusters = append(want.Clusters, collector.Cluster{
					ID: o.Cluster.UUID, Name: "other", State: "Running", ClusterType: "CloudManaged",
					ZoneID: zoneUUID, ZoneName: "zone1", Account: "alice", DomainID: rootUUID, Domain: "ROOT",
					NetworkID: o.Network.UUID, Created: o.Cluster.Created, ControlNodes: 1, WorkerNodes: 1,
					Mapped:         []collector.MappedVM{mappedVM(o.Control[0]), mappedVM(o.Workers[0])},
					MapRowsVisible: true,
					SSH:            collector.SSHTarget{Host: o.IP.Address, Port: 2222},
				})
				// The expunged VM is not listed, like listVirtualMachines.
				want.VMs = append(want.VMs, listedVM(o.Control[0]), listedVM(o.Workers[0]))
			},
			wantVM: func(s *setup) []brief {
				gone := s.extra[0]
				return []brief{
					{Kind: collector.KindMappedVMExpunged, VMID: gone.UUID, VMName: "other-node-1a1c2dc4f71", InternalID: gone.ID},
					{Kind: collector.KindMappedVMMissing, VMID: "999999", InternalID: 999999},
				}
			},
		},
		{
			name: "destroyed VM still in the map",
			edit: func(s *setup) { s.test.Workers[0].State = "Destroyed" },
			want: func(s *setup, want *collector.Inventory) {
				want.Clusters[0].Mapped[1].State = "Destroyed"
				want.VMs[1].State = "Destroyed" // admins see Destroyed VMs
			},
			wantVM: func(s *setup) []brief {
				w1 := s.test.Workers[0]
				return []brief{{Kind: collector.KindMappedVMExpunged, VMID: w1.UUID, VMName: w1.Name, InternalID: w1.ID}}
			},
		},
		{
			name: "project cluster",
			opts: Options{IncludeProjects: true},
			edit: func(s *setup) {
				blue := s.w.AddProject("blue")
				s.other = s.w.AddCluster(mariadbtest.ClusterSpec{Name: "blue-k8s", Owner: blue.Account, Control: 1, Workers: 1, Created: created})
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				// The API names a project resource's project, not its account.
				want.Clusters = append(want.Clusters, collector.Cluster{
					ID: o.Cluster.UUID, Name: "blue-k8s", State: "Running", ClusterType: "CloudManaged",
					ZoneID: zoneUUID, ZoneName: "zone1", DomainID: rootUUID, Domain: "ROOT",
					ProjectID: "00000003-0000-4000-8000-000000000001", Project: "blue",
					NetworkID: o.Network.UUID, Created: created, ControlNodes: 1, WorkerNodes: 1,
					Mapped:         []collector.MappedVM{mappedVM(o.Control[0]), mappedVM(o.Workers[0])},
					MapRowsVisible: true,
					SSH:            collector.SSHTarget{Host: o.IP.Address, Port: 2222},
				})
				for _, v := range o.VMs() {
					want.VMs = append(want.VMs, collector.VM{ID: v.UUID, Name: v.Name, State: "Running", DomainID: rootUUID,
						ProjectID: "00000003-0000-4000-8000-000000000001", Created: created})
				}
			},
		},
		{
			name: "project cluster left out without IncludeProjects",
			edit: func(s *setup) {
				blue := s.w.AddProject("blue")
				s.w.AddCluster(mariadbtest.ClusterSpec{Name: "blue-k8s", Owner: blue.Account, Control: 1, Workers: 1, Created: created})
			},
		},
		{
			name: "control node reached on a non-2222 port after a scale-down",
			edit: func(s *setup) {
				s.w.DeleteRule(s.test.Rules[0])
				s.w.AddPortForward(s.test.IP, s.test.Control[0], 2230, 22)
				s.w.AddPortForward(s.test.IP, s.test.Control[0], 6443, 6443) // not SSH
			},
			want: func(s *setup, want *collector.Inventory) { want.Clusters[0].SSH.Port = 2230 },
		},
		{
			name: "no rule for the control node: 2222",
			edit: func(s *setup) { s.w.DeleteRule(s.test.Rules[0]) },
		},
		{
			name: "configured SSH port wins",
			opts: Options{SSHPort: 22},
			edit: func(s *setup) {
				s.w.DeleteRule(s.test.Rules[0])
				s.w.AddPortForward(s.test.IP, s.test.Control[0], 2230, 22)
			},
			want: func(s *setup, want *collector.Inventory) { want.Clusters[0].SSH.Port = 22 },
		},
		{
			name: "two source NAT addresses: no public address, but the control node's rule",
			edit: func(s *setup) { s.w.AddSourceNAT(s.test.Network, "203.0.113.99") },
			want: func(s *setup, want *collector.Inventory) {}, // the rule's address and port, as before
		},
		{
			name: "two source NAT addresses and no rule: the node's own",
			edit: func(s *setup) {
				s.w.AddSourceNAT(s.test.Network, "203.0.113.99")
				s.w.DeleteRule(s.test.Rules[0])
			},
			want: func(s *setup, want *collector.Inventory) {
				want.Clusters[0].SSH = collector.SSHTarget{Host: s.test.Nics[0].Address, Port: 22}
			},
		},
		{
			name: "shared network: the control node's own address, port 22",
			edit: func(s *setup) {
				s.other = s.w.AddCluster(mariadbtest.ClusterSpec{Name: "flat", Owner: s.alice, Control: 1, Workers: 1, Shared: true, Created: created})
				// A second NIC, default, on another network comes after the one on the cluster's.
				s.w.AddNic(s.other.Control[0], s.w.AddNetwork("Isolated"), "192.168.7.7", true)
				s.other.Nics[0].Default = false
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				want.Clusters = append(want.Clusters, collector.Cluster{
					ID: o.Cluster.UUID, Name: "flat", State: "Running", ClusterType: "CloudManaged",
					ZoneID: zoneUUID, ZoneName: "zone1", Account: "alice", DomainID: rootUUID, Domain: "ROOT",
					NetworkID: o.Network.UUID, Created: created, ControlNodes: 1, WorkerNodes: 1,
					Mapped:         []collector.MappedVM{mappedVM(o.Control[0]), mappedVM(o.Workers[0])},
					MapRowsVisible: true,
					SSH:            collector.SSHTarget{Host: o.Nics[0].Address, Port: 22},
				})
				want.VMs = append(want.VMs, listedVM(o.Control[0]), listedVM(o.Workers[0]))
			},
		},
		{
			name: "shared network, no NIC on it: the default NIC",
			edit: func(s *setup) {
				s.other = s.w.AddCluster(mariadbtest.ClusterSpec{Name: "flat", Owner: s.alice, Control: 1, Workers: 1, Shared: true, Created: created})
				s.other.Nics[0].Removed = true
				s.w.AddNic(s.other.Control[0], s.w.AddNetwork("Isolated"), "192.168.7.7", true)
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				want.Clusters = append(want.Clusters, collector.Cluster{
					ID: o.Cluster.UUID, Name: "flat", State: "Running", ClusterType: "CloudManaged",
					ZoneID: zoneUUID, ZoneName: "zone1", Account: "alice", DomainID: rootUUID, Domain: "ROOT",
					NetworkID: o.Network.UUID, Created: created, ControlNodes: 1, WorkerNodes: 1,
					Mapped:         []collector.MappedVM{mappedVM(o.Control[0]), mappedVM(o.Workers[0])},
					MapRowsVisible: true,
					SSH:            collector.SSHTarget{Host: "192.168.7.7", Port: 22},
				})
				want.VMs = append(want.VMs, listedVM(o.Control[0]), listedVM(o.Workers[0]))
			},
		},
		{
			// The control node's row moved behind the workers' and its VM renamed: 4.16 and later
			// flag it; before, the API source's rule picks the first Running VM.
			name:    "control_node flag chooses the SSH target",
			version: mariadbtest.V4_21,
			edit:    moveControlRowLast,
			want:    wantControlRowLast,
		},
		{
			name:    "without control_node the first Running VM is the SSH target",
			version: mariadbtest.V4_14,
			edit:    moveControlRowLast,
			want: func(s *setup, want *collector.Inventory) {
				wantControlRowLast(s, want)
				want.Clusters[0].SSH.Port = 2223 // worker 1's rule
			},
		},
		{
			name:    "4.21: etcd nodes, external node, ExternalManaged",
			version: mariadbtest.V4_21,
			edit: func(s *setup) {
				s.other = s.w.AddCluster(mariadbtest.ClusterSpec{Name: "big", Owner: s.alice, Control: 1, Workers: 1, Etcd: 2, Created: created})
				ext := s.w.AddVM("byo-worker", "Running", s.alice, created)
				s.extra = append(s.extra, ext)
				s.w.AddMapRow(s.other.Cluster, ext.ID).External = true
				s.other.Map[1].Etcd = false // named like an etcd node: still an etcd node
				s.test.Cluster.Type = "ExternalManaged"
			},
			want: func(s *setup, want *collector.Inventory) {
				o, ext := s.other, s.extra[0]
				want.Clusters[0].ClusterType = "ExternalManaged"
				etcd1, etcd2 := mappedVM(o.Etcd[0]), mappedVM(o.Etcd[1])
				etcd1.Etcd, etcd2.Etcd = true, true
				byo := mappedVM(ext)
				byo.External = true
				want.Clusters = append(want.Clusters, collector.Cluster{
					ID: o.Cluster.UUID, Name: "big", State: "Running", ClusterType: "CloudManaged",
					ZoneID: zoneUUID, ZoneName: "zone1", Account: "alice", DomainID: rootUUID, Domain: "ROOT",
					NetworkID: o.Network.UUID, Created: created, ControlNodes: 1, WorkerNodes: 1, EtcdNodes: 2,
					Mapped:         []collector.MappedVM{mappedVM(o.Control[0]), etcd1, etcd2, mappedVM(o.Workers[0]), byo},
					MapRowsVisible: true,
					SSH:            collector.SSHTarget{Host: o.IP.Address, Port: 2222},
				})
				for _, v := range o.VMs() {
					want.VMs = append(want.VMs, listedVM(v))
				}
				want.VMs = append(want.VMs, listedVM(ext))
			},
		},
		{
			name: "removed cluster and system VM are not listed",
			edit: func(s *setup) {
				gone := s.w.AddCluster(mariadbtest.ClusterSpec{Name: "gone", Owner: s.alice, Control: 1, Workers: 1, Created: created})
				gone.Cluster.Removed = true
				for _, v := range gone.VMs() {
					v.Removed = true
				}
				s.w.AddVM("r-4-VM", "Running", s.alice, created).System = true
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &setup{reportWorld: newReportWorld()}
			if tt.edit != nil {
				tt.edit(s)
			}
			version := tt.version
			if version == 0 {
				version = mariadbtest.Current
			}
			want := baseline(s.reportWorld)
			if tt.want != nil {
				tt.want(s, &want)
			}
			src, _ := load(t, s.w, version, tt.opts)
			inv := inventory(t, src)
			if diff := cmp.Diff(want, inv, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("inventory (-want +got):\n%s", diff)
			}

			nodes := nodeNames(s.test.VMs()...)
			if tt.nodes != nil {
				nodes = tt.nodes(s)
			}
			vm, node := findings(t, inv, testUUID, nodes)
			var wantVM, wantNode []brief
			if tt.wantVM != nil {
				wantVM = tt.wantVM(s)
			}
			if tt.wantNod != nil {
				wantNode = tt.wantNod(s)
			}
			if diff := cmp.Diff(wantVM, vm); diff != "" {
				t.Errorf("VM findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantNode, node); diff != "" {
				t.Errorf("node findings (-want +got):\n%s", diff)
			}
			for _, f := range vm {
				if f.Kind == collector.KindVMMapIncomplete {
					t.Errorf("vm_map_incomplete with the map rows visible: %+v", f)
				}
			}
		})
	}
}

const day = 24 * time.Hour

// moveControlRowLast renames the control VM away from the naming rule and moves its map row
// (still flagged control_node) behind the workers'.
func moveControlRowLast(s *setup) {
	ctl := s.test.Control[0]
	ctl.Name = "k8s-head"
	s.w.DeleteMapRow(s.test.Map[0])
	s.w.AddMapRow(s.test.Cluster, ctl.ID).Control = true
}

func wantControlRowLast(s *setup, want *collector.Inventory) {
	c := &want.Clusters[0]
	ctl := c.Mapped[0]
	ctl.Name = "k8s-head"
	c.Mapped = append(c.Mapped[1:], ctl)
	want.VMs[0].Name = "k8s-head"
}
