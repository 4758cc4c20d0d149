package database

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// baseline is what the API source reports for the report world, plus what only the database
// shows: internal ids and MapRowsVisible.
func baseline(rw reportWorld) collector.Inventory {
	c := rw.test.Cluster
	inv := collector.Inventory{Clusters: []collector.Cluster{{
		ID: c.ID, Name: "test", State: "Running", ClusterType: "CloudManaged",
		ZoneID: cloudstacktest.Zone1ID, ZoneName: "zone1", Account: "alice", DomainID: cloudstacktest.RootDomainID, Domain: "ROOT",
		NetworkID: c.NetworkID, Created: created,
		ControlNodes: 1, WorkerNodes: 2,
		MapRowsVisible: true,
		SSH:            collector.SSHTarget{Host: "203.0.113.2", Port: 2222},
	}}, Offerings: collector.Offerings{Read: true}} // the reader may read the offerings: none is named
	for _, v := range rw.test.VMs() {
		inv.Clusters[0].Mapped = append(inv.Clusters[0].Mapped, mappedVM(v))
		inv.VMs = append(inv.VMs, listedVM(v))
	}
	return inv
}

// ignoreRules leaves the network side's rules out of a comparison of inventories: rules_test.go
// compares them with the API source's, release by release.
var ignoreRules = cmpopts.IgnoreFields(collector.Cluster{}, "Rules")

// TestBaseline is scenario 1: the VM names are vm_instance.name (not instance_name, not
// display_name), every field is the API's, and the check finds nothing, on every schema version.
func TestBaseline(t *testing.T) {
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			rw := newReportWorld()
			for _, vm := range rw.test.VMs() {
				vm.DisplayName = "display " + vm.Name
			}
			s, d := load(t, rw.w, v, Options{})
			inv := inventory(t, s)
			if diff := cmp.Diff(atSchema(baseline(rw), v), inv, ignoreRules); diff != "" {
				t.Errorf("inventory (-want +got):\n%s", diff)
			}
			var name, instance, display string
			if err := d.Admin.QueryRow("SELECT v.name, v.instance_name, u.display_name FROM vm_instance v JOIN user_vm u ON u.id = v.id WHERE v.id = ?",
				rw.test.Control[0].InternalID).Scan(&name, &instance, &display); err != nil {
				t.Fatal(err)
			}
			if name == instance || name == display {
				t.Fatalf("the rows must give the VM distinct name, instance_name and display_name: %q, %q, %q", name, instance, display)
			}
			vm, node := findings(t, inv, rw.test.Cluster.ID, nodeNames(rw.test.VMs()...))
			if len(vm)+len(node) != 0 {
				t.Errorf("findings: vm %v, node %v; want none", vm, node)
			}
		})
	}
}

// setup is the report world with what a scenario adds to it.
type setup struct {
	reportWorld
	other *cloudstacktest.ClusterSet
	extra []*cloudstacktest.VM
}

// otherCluster is the inventory's row of a cluster a scenario adds in account alice: its VMs
// mapped, reached through its first rule.
func otherCluster(o *cloudstacktest.ClusterSet) collector.Cluster {
	c := collector.Cluster{
		ID: o.Cluster.ID, Name: o.Cluster.Name, State: "Running", ClusterType: "CloudManaged",
		ZoneID: cloudstacktest.Zone1ID, ZoneName: "zone1", Account: o.Cluster.Account, DomainID: cloudstacktest.RootDomainID, Domain: "ROOT",
		ProjectID: o.Cluster.ProjectID, Project: o.Cluster.Project,
		NetworkID: o.Cluster.NetworkID, Created: o.Cluster.Created,
		ControlNodes: int(o.Cluster.ControlNodes), WorkerNodes: int(o.Cluster.Size), EtcdNodes: int(o.Cluster.EtcdNodes),
		MapRowsVisible: true,
	}
	if o.IP != nil {
		c.SSH = collector.SSHTarget{Host: o.IP.Address, Port: 2222}
	}
	for _, v := range o.VMs() {
		c.Mapped = append(c.Mapped, mappedVM(v))
	}
	return c
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
			edit: func(s *setup) { s.test.Cluster.VMMap = s.test.Cluster.VMMap[:2] },
			want: func(s *setup, want *collector.Inventory) {
				want.Clusters[0].Mapped = want.Clusters[0].Mapped[:2]
			},
			wantVM: func(s *setup) []brief {
				w2 := s.test.Workers[1]
				return []brief{{Kind: collector.KindUnmappedVM, VMID: w2.ID, VMName: w2.Name}}
			},
		},
		{
			// Rows inserted into the test cluster's map: the VM of a node removed earlier from
			// another cluster, expunged (removed set, state Expunging), and VM id 999999.
			name: "3: map rows for an expunged VM and for VM id 999999",
			edit: func(s *setup) {
				s.other = s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "other", Account: "alice", Control: 1, Workers: 1, Created: created.Add(-day)})
				gone := vmOf(s.w, s.test.Cluster, "other-node-1a1c2dc4f71", "Expunging", created.Add(-day))
				gone.Removed = true
				s.extra = append(s.extra, gone)
				s.test.Cluster.VMMap = append(s.test.Cluster.VMMap, gone.InternalID, 999999)
			},
			want: func(s *setup, want *collector.Inventory) {
				gone := s.extra[0]
				c := &want.Clusters[0]
				c.Mapped = append(c.Mapped,
					collector.MappedVM{ID: gone.ID, InternalID: gone.InternalID, Name: "other-node-1a1c2dc4f71", State: "Expunging", Created: gone.Created, Removed: true},
					collector.MappedVM{InternalID: 999999, Missing: true})
				o := s.other
				want.Clusters = append(want.Clusters, otherCluster(o))
				// The expunged VM is not listed, like listVirtualMachines.
				want.VMs = append(want.VMs, listedVM(o.Control[0]), listedVM(o.Workers[0]))
			},
			wantVM: func(s *setup) []brief {
				gone := s.extra[0]
				return []brief{
					{Kind: collector.KindMappedVMExpunged, VMID: gone.ID, VMName: "other-node-1a1c2dc4f71", InternalID: gone.InternalID},
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
				return []brief{{Kind: collector.KindMappedVMExpunged, VMID: w1.ID, VMName: w1.Name, InternalID: w1.InternalID}}
			},
		},
		{
			name: "project cluster",
			opts: Options{IncludeProjects: true},
			edit: func(s *setup) {
				s.other = s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "blue-k8s", ProjectID: blueID, Project: "blue", Control: 1, Workers: 1, Created: created})
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				// The API names a project resource's project, not its account.
				c := otherCluster(o)
				c.Account, c.ProjectID, c.Project = "", blueID, "blue"
				want.Clusters = append(want.Clusters, c)
				for _, v := range o.VMs() {
					want.VMs = append(want.VMs, collector.VM{ID: v.ID, Name: v.Name, State: "Running", DomainID: cloudstacktest.RootDomainID,
						ProjectID: blueID, Created: created, CKSNode: true})
				}
			},
		},
		{
			name: "project cluster left out without IncludeProjects",
			edit: func(s *setup) {
				s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "blue-k8s", ProjectID: blueID, Project: "blue", Control: 1, Workers: 1, Created: created})
			},
		},
		{
			name: "control node reached on a non-2222 port after a scale-down",
			edit: func(s *setup) {
				deleteRule(s.w, s.test.Rules[0])
				forward(s.w, s.test, s.test.Control[0], 2230, 22)
				forward(s.w, s.test, s.test.Control[0], 6443, 6443) // not SSH
			},
			want: func(s *setup, want *collector.Inventory) { want.Clusters[0].SSH.Port = 2230 },
		},
		{
			name: "no rule for the control node: 2222",
			edit: func(s *setup) { deleteRule(s.w, s.test.Rules[0]) },
		},
		{
			name: "configured SSH port wins",
			opts: Options{SSHPort: 22},
			edit: func(s *setup) {
				deleteRule(s.w, s.test.Rules[0])
				forward(s.w, s.test, s.test.Control[0], 2230, 22)
			},
			want: func(s *setup, want *collector.Inventory) { want.Clusters[0].SSH.Port = 22 },
		},
		{
			name: "two source NAT addresses: no public address, but the control node's rule",
			edit: func(s *setup) { secondSourceNAT(s.w, s.test) },
			want: func(s *setup, want *collector.Inventory) {}, // the rule's address and port, as before
		},
		{
			name: "two source NAT addresses and no rule: the node's own",
			edit: func(s *setup) {
				secondSourceNAT(s.w, s.test)
				deleteRule(s.w, s.test.Rules[0])
			},
			want: func(s *setup, want *collector.Inventory) {
				want.Clusters[0].SSH = collector.SSHTarget{Host: s.test.Control[0].IPAddress, Port: 22}
			},
		},
		{
			name: "shared network: the control node's own address, port 22",
			edit: func(s *setup) {
				s.other = s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "flat", Account: "alice", Control: 1, Workers: 1, Shared: true, Created: created})
				// Its default NIC is on another network, its NIC on the cluster's another one.
				ctl := s.other.Control[0]
				ctl.OtherNICs = []cloudstacktest.NIC{{NetworkID: ctl.NetworkID, IPAddress: ctl.IPAddress}}
				ctl.NetworkID, ctl.IPAddress = "net-elsewhere", "192.168.7.7"
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				c := otherCluster(o)
				c.SSH = collector.SSHTarget{Host: o.Control[0].OtherNICs[0].IPAddress, Port: 22}
				want.Clusters = append(want.Clusters, c)
				want.VMs = append(want.VMs, listedVM(o.Control[0]), listedVM(o.Workers[0]))
			},
		},
		{
			name: "shared network, no NIC on it: the default NIC",
			edit: func(s *setup) {
				s.other = s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "flat", Account: "alice", Control: 1, Workers: 1, Shared: true, Created: created})
				ctl := s.other.Control[0]
				ctl.OtherNICs = []cloudstacktest.NIC{{NetworkID: ctl.NetworkID, IPAddress: ctl.IPAddress, Removed: true}}
				ctl.NetworkID, ctl.IPAddress = "net-elsewhere", "192.168.7.7"
			},
			want: func(s *setup, want *collector.Inventory) {
				o := s.other
				c := otherCluster(o)
				c.SSH = collector.SSHTarget{Host: "192.168.7.7", Port: 22}
				want.Clusters = append(want.Clusters, c)
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
				s.other = s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "big", Account: "alice", Control: 1, Workers: 1, Etcd: 2, Created: created})
				ext := vmOf(s.w, s.other.Cluster, "byo-worker", "Running", created)
				ext.ExternalNode = true
				s.extra = append(s.extra, ext)
				s.other.Cluster.VMMap = append(s.other.Cluster.VMMap, ext.InternalID)
				s.other.Etcd[1].EtcdNode = false // named like an etcd node: still an etcd node
				s.test.Cluster.ClusterType = "ExternalManaged"
			},
			want: func(s *setup, want *collector.Inventory) {
				o, ext := s.other, s.extra[0]
				want.Clusters[0].ClusterType = "ExternalManaged"
				c := otherCluster(o)
				c.Mapped[1].Etcd, c.Mapped[2].Etcd = true, true
				byo := mappedVM(ext)
				byo.External = true
				c.Mapped = append(c.Mapped, byo)
				want.Clusters = append(want.Clusters, c)
				for _, v := range o.VMs() {
					want.VMs = append(want.VMs, listedVM(v))
				}
				want.VMs = append(want.VMs, listedVM(ext))
			},
		},
		{
			name: "removed cluster and system VM are not listed",
			edit: func(s *setup) {
				gone := s.w.BuildCluster(cloudstacktest.ClusterSpec{Name: "gone", Account: "alice", Control: 1, Workers: 1, Created: created})
				gone.Cluster.Removed = true
				for _, v := range gone.VMs() {
					v.Removed = true
				}
				vmOf(s.w, s.test.Cluster, "r-4-VM", "Running", created).System = true
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
			if diff := cmp.Diff(atSchema(want, version), inv, cmpopts.EquateEmpty(), ignoreRules); diff != "" {
				t.Errorf("inventory (-want +got):\n%s", diff)
			}

			nodes := nodeNames(s.test.VMs()...)
			if tt.nodes != nil {
				nodes = tt.nodes(s)
			}
			vm, node := findings(t, inv, s.test.Cluster.ID, nodes)
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

// blueID is the uuid of project blue.
const blueID = "00000003-0000-4000-8000-000000000001"

// secondSourceNAT gives the cluster's network a second source NAT address.
func secondSourceNAT(w *cloudstacktest.World, s *cloudstacktest.ClusterSet) {
	w.PublicIPs = append(w.PublicIPs, &cloudstacktest.PublicIP{ID: "ip-second-nat", Address: "203.0.113.99",
		NetworkID: s.Cluster.NetworkID, SourceNAT: true, Account: s.Cluster.Account, DomainID: s.Cluster.DomainID})
}

// moveControlRowLast renames the control VM away from the naming rule and moves its map row
// (still flagged control_node) behind the workers'.
func moveControlRowLast(s *setup) {
	ctl := s.test.Control[0]
	ctl.Name = "k8s-head"
	c := s.test.Cluster
	c.VMMap = append(c.VMMap[1:], ctl.InternalID)
}

func wantControlRowLast(s *setup, want *collector.Inventory) {
	c := &want.Clusters[0]
	ctl := c.Mapped[0]
	ctl.Name = "k8s-head"
	c.Mapped = append(c.Mapped[1:], ctl)
	want.VMs[0].Name = "k8s-head"
}
