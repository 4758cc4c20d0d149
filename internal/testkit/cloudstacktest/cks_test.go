package cloudstacktest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildCluster lists a cluster BuildCluster made, beside a removed cluster and a system VM
// that no API lists, and a node with a second NIC, which listVirtualMachines shows after its
// default one.
func TestBuildCluster(t *testing.T) {
	s, cs := newTestServer(t)
	var set *ClusterSet
	s.Update(func(w *World) {
		set = w.BuildCluster(ClusterSpec{Name: "Test", Account: AdminAccount, Control: 1, Workers: 1, Etcd: 1, Created: testTime})
		set.Workers[0].OtherNICs = []NIC{{NetworkID: "net-storage", IPAddress: "192.168.9.9"}, {NetworkID: "net-old", Removed: true}}
		w.BuildCluster(ClusterSpec{Name: "gone", Account: AdminAccount, Control: 1, Created: testTime}).Cluster.Removed = true
		w.AddVM(VM{Name: "r-4-VM", State: "Running", System: true, Created: testTime}.Of(set.Cluster))
	})

	l, err := cs.Kubernetes.ListKubernetesClusters(cs.Kubernetes.NewListKubernetesClustersParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.KubernetesClusters) != 1 || l.KubernetesClusters[0].Id != set.Cluster.ID {
		t.Fatalf("clusters: %+v, want only %s", l.KubernetesClusters, set.Cluster.ID)
	}
	c := l.KubernetesClusters[0]
	var names []string
	for _, vm := range c.Virtualmachines {
		names = append(names, vm.Name)
	}
	want := []string{"test-control-18fe7619090", "Test-etcd-1-18fe76190f4", "test-node-18fe7619158"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("map order, control then etcd then workers (-want +got):\n%s", diff)
	}
	if c.Ipaddress != "203.0.113.2" || c.Ipaddressid != set.IP.ID || c.Networkid != set.Cluster.NetworkID || c.Zonename != "zone1" {
		t.Errorf("cluster: %+v", c)
	}
	if len(set.Rules) != 3 || set.Rules[2].PublicPort != 2224 || set.Rules[2].VirtualMachineID != set.Workers[0].ID ||
		!set.Control[0].ControlNode || !set.Etcd[0].EtcdNode || set.Workers[0].ControlNode {
		t.Errorf("rules %+v, flags control %v etcd %v", set.Rules, set.Control[0].ControlNode, set.Etcd[0].EtcdNode)
	}

	vms, err := cs.VirtualMachine.ListVirtualMachines(cs.VirtualMachine.NewListVirtualMachinesParams())
	if err != nil {
		t.Fatal(err)
	}
	type nic struct {
		Network, IP string
		Default     bool
	}
	got := map[string][]nic{}
	for _, vm := range vms.VirtualMachines {
		for _, n := range vm.Nic {
			got[vm.Name] = append(got[vm.Name], nic{n.Networkid, n.Ipaddress, n.Isdefault})
		}
	}
	net := set.Cluster.NetworkID
	wantNICs := map[string][]nic{
		"test-control-18fe7619090": {{net, "10.1.1.10", true}},
		"Test-etcd-1-18fe76190f4":  {{net, "10.1.1.11", true}},
		"test-node-18fe7619158":    {{net, "10.1.1.12", true}, {"net-storage", "192.168.9.9", false}},
		"gone-control-18fe7619090": {{"cafe0000-0000-4000-8000-00000000000a", "10.1.2.10", true}},
	}
	if diff := cmp.Diff(wantNICs, got); diff != "" {
		t.Errorf("listed VMs and their NICs, no system VM (-want +got):\n%s", diff)
	}
}

// TestOperationEvent: the event a cluster command records, under the cluster's owner; from
// 4.19.1.0 (the 4.20 line) with the cluster as its resource and the create's new text.
func TestOperationEvent(t *testing.T) {
	c := &Cluster{ID: "cafe0000-0000-4000-8000-000000000001", InternalID: 7, Account: "alice", DomainID: RootDomainID, Domain: "ROOT"}
	resource := func(e Event) Event { e.ResourceID, e.ResourceType = c.ID, "KubernetesCluster"; return e }
	for _, tt := range []struct {
		release string
		want    map[string]Event
	}{
		{Release418, map[string]Event{
			"KUBERNETES.CLUSTER.SCALE":   {Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + c.ID},
			"KUBERNETES.CLUSTER.UPGRADE": {Type: "KUBERNETES.CLUSTER.UPGRADE", Description: "Upgrading Kubernetes cluster ID: " + c.ID},
			"KUBERNETES.CLUSTER.CREATE":  {Type: "KUBERNETES.CLUSTER.CREATE", Description: "Creating Kubernetes cluster. Cluster Id: 7"},
		}},
		{Release420, map[string]Event{
			"KUBERNETES.CLUSTER.SCALE":  resource(Event{Type: "KUBERNETES.CLUSTER.SCALE", Description: "Scaling Kubernetes cluster ID: " + c.ID}),
			"KUBERNETES.CLUSTER.CREATE": resource(Event{Type: "KUBERNETES.CLUSTER.CREATE", Description: "Creating Kubernetes cluster Id: 7"}),
		}},
		{Release422, map[string]Event{
			"KUBERNETES.CLUSTER.STOP": resource(Event{Type: "KUBERNETES.CLUSTER.STOP", Description: "Stopping Kubernetes cluster ID: " + c.ID}),
			"KUBERNETES.CLUSTER.NODES.REMOVE": resource(Event{Type: "KUBERNETES.CLUSTER.NODES.REMOVE",
				Description: "Removing 1 nodes from the Kubernetes Cluster with ID: 7"}),
		}},
	} {
		w := &World{Release: tt.release}
		for eventType, want := range tt.want {
			want.State, want.Created = "Scheduled", testTime
			want = want.Of(c)
			if diff := cmp.Diff(want, w.OperationEvent(c, eventType, testTime.Add(300))); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.release, eventType, diff)
			}
		}
	}
}
