package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

const (
	publicIP   = "203.0.113.10"
	publicIPID = "40000000-0000-4000-8000-000000000010"
	otherIPID  = "40000000-0000-4000-8000-000000000011"
)

// rule is a port-forwarding rule to port private of the cluster's VM number vm, on ipID.
type rule struct {
	ipID         string
	public, priv int
	vm           int
}

// TestInventorySSHTarget checks how the first control node is reached: behind the cluster's
// public IP on the public port of its rule to port 22 (2222 when there is none), on its own
// address, port 22, on a shared network, and on Options.SSHPort when set, which also saves the
// listPortForwardingRules calls.
func TestInventorySSHTarget(t *testing.T) {
	tests := []struct {
		name      string
		isolated  bool
		project   bool
		rules     []rule // VMs: 0 and 1 controls, 2 a worker, 3 an etcd node
		sshPort   int
		expunged  bool // the first control VM is expunged: its map row is invisible
		etcdFirst bool // the etcd node's map row comes before the controls'
		wantNIC   bool // want the control's own address instead of the public IP
		wantPort  int
		wantCalls int // listPortForwardingRules
	}{
		{name: "isolated, port moved by a scale-down", isolated: true,
			rules: []rule{
				{ipID: otherIPID, public: 2299, priv: 22, vm: 0}, // another public IP
				{ipID: publicIPID, public: 2230, priv: 22, vm: 0},
				{ipID: publicIPID, public: 2231, priv: 22, vm: 1},
				{ipID: publicIPID, public: 2232, priv: 22, vm: 2},
				{ipID: publicIPID, public: 2240, priv: 8080, vm: 0}, // not SSH
			},
			wantPort: 2230, wantCalls: 1},
		{name: "isolated, no rule falls back to 2222", isolated: true, wantPort: 2222, wantCalls: 1},
		{name: "isolated, only other VMs have rules", isolated: true,
			rules:    []rule{{ipID: publicIPID, public: 2223, priv: 22, vm: 1}, {ipID: publicIPID, public: 2224, priv: 22, vm: 2}},
			wantPort: 2222, wantCalls: 1},
		{name: "isolated project cluster, rule listed with projectid=-1", isolated: true, project: true,
			rules: []rule{{ipID: publicIPID, public: 2233, priv: 22, vm: 0}}, wantPort: 2233, wantCalls: 1}, // the projects' pass only
		{name: "isolated, first control expunged: the next control's rule", isolated: true, expunged: true,
			rules:    []rule{{ipID: publicIPID, public: 2230, priv: 22, vm: 0}, {ipID: publicIPID, public: 2231, priv: 22, vm: 1}},
			wantPort: 2231, wantCalls: 1},
		{name: "isolated, etcd node mapped before the controls", isolated: true, etcdFirst: true,
			rules:    []rule{{ipID: publicIPID, public: 2234, priv: 22, vm: 3}, {ipID: publicIPID, public: 2230, priv: 22, vm: 0}},
			wantPort: 2230, wantCalls: 1},
		// A shared network has no rules, but only listing them tells it from a VPC tier.
		{name: "shared network", wantNIC: true, wantPort: 22, wantCalls: 1},
		{name: "shared network, etcd node mapped before the controls", etcdFirst: true, wantNIC: true, wantPort: 22, wantCalls: 1},
		{name: "shared network, first control expunged", expunged: true, wantNIC: true, wantPort: 22, wantCalls: 1},
		// With ssh.port the rules give no SSH address, but are still read for the network side.
		{name: "isolated, SSHPort overrides", isolated: true, sshPort: 2022, wantCalls: 1,
			rules: []rule{{ipID: publicIPID, public: 2230, priv: 22, vm: 0}}, wantPort: 2022},
		{name: "shared network, SSHPort overrides", sshPort: 2022, wantNIC: true, wantPort: 2022, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cks
			s := startFake(t, func(w *cloudstacktest.World) {
				k := accountCluster("prod")
				if tt.project {
					k.Account, k.ProjectID, k.Project = "PrjAcct-team-1", projectID, "team"
				}
				if tt.isolated {
					k.IPAddress, k.IPAddressID = publicIP, publicIPID
				}
				c = addCKS(w, k, 2, 1, 1)
				c.vms[0].Removed = tt.expunged
				if m := c.cluster.VMMap; tt.etcdFirst {
					c.cluster.VMMap = []int64{m[3], m[0], m[1], m[2]}
				}
				for _, r := range tt.rules {
					w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: r.ipID, PublicPort: r.public,
						PrivatePort: r.priv, VirtualMachineID: c.vms[r.vm].ID, NetworkID: k.NetworkID,
						Account: k.Account, ProjectID: k.ProjectID})
				}
			})

			inv := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: tt.project, SSHPort: tt.sshPort}))

			if len(inv.Clusters) != 1 {
				t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
			}
			want := collector.SSHTarget{Host: publicIP, Port: tt.wantPort}
			if tt.wantNIC {
				want.Host = c.vms[0].IPAddress
				if tt.expunged {
					want.Host = c.vms[1].IPAddress
				}
			}
			if diff := cmp.Diff(want, inv.Clusters[0].SSH); diff != "" {
				t.Errorf("SSH target (-want +got):\n%s", diff)
			}
			if n := s.CallCount("listPortForwardingRules"); n != tt.wantCalls {
				t.Errorf("got %d listPortForwardingRules calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

// TestInventorySSHTargetNoVM checks that a cluster without any visible VM has no SSH target
// rather than the address of some other VM.
func TestInventorySSHTargetNoVM(t *testing.T) {
	s := startFake(t, func(w *cloudstacktest.World) {
		k := accountCluster("empty")
		k.State, k.IPAddress, k.IPAddressID = "Created", publicIP, publicIPID
		w.AddCluster(k)
	})
	inv := mustInventory(t, newSource(t, s, api.Options{}))
	if len(inv.Clusters) != 1 {
		t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
	}
	if got := inv.Clusters[0].SSH; got != (collector.SSHTarget{}) {
		t.Errorf("SSH target = %+v, want none", got)
	}
}

// TestInventorySSHTargetSimulator reads clusters built by the simulator, whose rules forward a
// random public port to the control node's SSH server, and checks that the target is that server.
func TestInventorySSHTargetSimulator(t *testing.T) {
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	specs := []simulator.ClusterSpec{
		{Name: "alpha"},
		{Name: "beta", Controls: 3, Workers: 4, Etcd: 1},
		{Name: "gamma", ProjectID: projectID, Project: "team"},
	}
	want := make(map[string]collector.SSHTarget)
	for _, spec := range specs {
		c, err := sim.AddCluster(spec)
		if err != nil {
			t.Fatal(err)
		}
		want[c.ID] = collector.SSHTarget{Host: "127.0.0.1", Port: sim.Node(c.ID).Port()}
	}

	inv := mustInventory(t, newSource(t, sim.CloudStack, api.Options{IncludeProjects: true}))

	got := make(map[string]collector.SSHTarget)
	for _, c := range inv.Clusters {
		got[c.ID] = c.SSH
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SSH targets by cluster (-want +got):\n%s", diff)
	}
}
