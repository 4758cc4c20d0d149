package cloudstacktest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClusterVirtualMachinesSkipRemovedAndMissingRows(t *testing.T) {
	s, cs := newTestServer(t)
	var cluster *Cluster
	s.Update(func(w *World) {
		add := func(name, state string, removed bool) int64 {
			return w.AddVM(VM{Name: name, State: state, Removed: removed, Account: AdminAccount,
				NetworkID: "net-1", IPAddress: "10.1.1.5", ZoneID: "zone-1", Created: testTime}).InternalID
		}
		control := add("c1-control-18f", "Running", false)
		worker := add("c1-node-18f", "Destroyed", false)
		expunging := add("c1-node-190", "Expunging", false)
		gone := add("c1-node-191", "Expunging", true)
		cluster = w.AddCluster(Cluster{
			Name: "c1", State: "Alert", Account: AdminAccount, ZoneID: "zone-1", NetworkID: "net-1",
			IPAddress: "203.0.113.7", IPAddressID: "ip-1", KeyPair: "kp", ControlNodes: 1, Size: 3,
			Created: testTime, VMMap: []int64{control, 9999, worker, gone, expunging},
		})
	})

	l, err := cs.Kubernetes.ListKubernetesClusters(cs.Kubernetes.NewListKubernetesClustersParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.KubernetesClusters) != 1 {
		t.Fatalf("got %d clusters, want 1", len(l.KubernetesClusters))
	}
	c := l.KubernetesClusters[0]
	type vmState struct{ Name, State, IP string }
	var got []vmState
	for _, vm := range c.Virtualmachines {
		ip := ""
		if len(vm.Nic) == 1 && vm.Nic[0].Isdefault {
			ip = vm.Nic[0].Ipaddress
		}
		got = append(got, vmState{vm.Name, vm.State, ip})
	}
	want := []vmState{
		{"c1-control-18f", "Running", "10.1.1.5"},
		{"c1-node-18f", "Destroyed", "10.1.1.5"},
		{"c1-node-190", "Expunging", "10.1.1.5"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("virtualmachines (-want +got):\n%s", diff)
	}
	if c.Id != cluster.ID || c.Controlnodes != 1 || c.Size != 3 || c.Clustertype != "CloudManaged" ||
		c.Endpoint != "https://203.0.113.7:6443/" || c.Keypair != "kp" || c.Ipaddressid != "ip-1" ||
		c.Created != "2024-06-05T07:51:22+0000" || c.Masternodes != 1 {
		t.Errorf("cluster fields wrong: %+v", c)
	}
}

func TestListPortForwardingRules(t *testing.T) {
	s, cs := newTestServer(t)
	s.Update(func(w *World) {
		control := w.AddVM(VM{Name: "c1-control", IPAddress: "10.1.1.10", Account: AdminAccount})
		worker := w.AddVM(VM{Name: "c1-node", IPAddress: "10.1.1.11", Account: AdminAccount})
		for i, vm := range []*VM{control, worker} {
			w.AddPortForwardingRule(PortForwardingRule{IPAddressID: "ip-1", IPAddress: "203.0.113.7",
				PublicPort: 2222 + i, PrivatePort: 22, VirtualMachineID: vm.ID, NetworkID: "net-1", Account: AdminAccount})
		}
		w.AddPortForwardingRule(PortForwardingRule{IPAddressID: "ip-2", PublicPort: 80, PrivatePort: 8080,
			VirtualMachineID: worker.ID, Account: AdminAccount})
	})
	p := cs.Firewall.NewListPortForwardingRulesParams()
	p.SetIpaddressid("ip-1")
	l, err := cs.Firewall.ListPortForwardingRules(p)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct{ Public, PublicEnd, Private, VM, GuestIP, Protocol, State string }
	var got []rule
	for _, r := range l.PortForwardingRules {
		got = append(got, rule{r.Publicport, r.Publicendport, r.Privateport, r.Virtualmachinename, r.Vmguestip, r.Protocol, r.State})
	}
	want := []rule{
		{"2222", "2222", "22", "c1-control", "10.1.1.10", "tcp", "Active"},
		{"2223", "2223", "22", "c1-node", "10.1.1.11", "tcp", "Active"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if l.Count != 2 {
		t.Errorf("count %d, want 2", l.Count)
	}

	// The ACL applies to rules as to VMs: another account's rules need listall.
	s.Update(func(w *World) { w.PortForwardingRules[2].Account = "alice" })
	all := cs.Firewall.NewListPortForwardingRulesParams()
	l, _ = cs.Firewall.ListPortForwardingRules(all)
	all.SetListall(true)
	withAll, _ := cs.Firewall.ListPortForwardingRules(all)
	if l.Count != 2 || withAll.Count != 3 {
		t.Errorf("without listall %d rules, with %d; want 2 and 3", l.Count, withAll.Count)
	}
}
