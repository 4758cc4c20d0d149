package api_test

import (
	"fmt"
	"testing"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestInventoryClusterPaging lists more clusters than fit a page from releases whose count is
// the page's length (KubernetesClusterManagerImpl.listKubernetesClusters calls setResponses(list)
// without a total at 4.14.0.0, 4.17.0.0 and 4.19.0.0) and from those whose count is the total
// (4.19.1.0 on, apache/cloudstack#8701): every cluster is read once, and the listing stops at the
// first short page, or once it holds the total.
func TestInventoryClusterPaging(t *testing.T) {
	tests := []struct {
		release   string
		clusters  int
		pageSize  int
		wantCalls int
	}{
		{release: cloudstacktest.Release414, clusters: 7, pageSize: 3, wantCalls: 3},
		{release: cloudstacktest.Release416, clusters: 7, pageSize: 3, wantCalls: 3},
		{release: cloudstacktest.Release420, clusters: 7, pageSize: 3, wantCalls: 3},
		{release: cloudstacktest.Release418, clusters: 6, pageSize: 3, wantCalls: 3}, // a last, empty page
		{release: cloudstacktest.Release420, clusters: 6, pageSize: 3, wantCalls: 2}, // the total: no empty page
		{release: cloudstacktest.Release422, clusters: 7, pageSize: 3, wantCalls: 3},
		{release: cloudstacktest.Release420, clusters: 2, pageSize: 3, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s, %d clusters, pages of %d", tt.release, tt.clusters, tt.pageSize), func(t *testing.T) {
			var want []string
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				for i := range tt.clusters {
					k := addCKS(w, accountCluster(fmt.Sprintf("c%d", i)), 1, 1, 0)
					want = append(want, k.cluster.ID)
				}
			})
			inv := mustInventory(t, newSource(t, s, api.Options{PageSize: tt.pageSize}))
			var got []string
			for _, c := range inv.Clusters {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("clusters read (-want +got):\n%s", diff)
			}
			if n := s.CallCount("listKubernetesClusters"); n != tt.wantCalls {
				t.Errorf("got %d listKubernetesClusters calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

// TestInventoryReleaseShapes reads one isolated cluster (a control, a worker, an etcd node) from
// the answers of every release line and checks that the inventory holds the same cluster, map
// and SSH target, whatever fields the release sends.
func TestInventoryReleaseShapes(t *testing.T) {
	for _, release := range []string{cloudstacktest.Release414, cloudstacktest.Release415, cloudstacktest.Release416,
		cloudstacktest.Release418, cloudstacktest.Release420, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			var k cks
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				c := accountCluster("prod")
				c.IPAddress, c.IPAddressID = publicIP, publicIPID
				k = addCKS(w, c, 1, 1, 1)
				k.vms[2].EtcdNode = true
				w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: publicIPID, IPAddress: publicIP,
					PublicPort: 2222, PrivatePort: 22, VirtualMachineID: k.vms[0].ID, NetworkID: c.NetworkID, Account: c.Account})
			})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			if len(inv.Clusters) != 1 {
				t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
			}
			got := inv.Clusters[0]
			var mapped []collector.MappedVM
			for i, vm := range k.vms {
				mapped = append(mapped, collector.MappedVM{ID: vm.ID, Name: vm.Name, State: "Running", Created: created, Etcd: i == 2})
			}
			want := collector.Cluster{ID: k.cluster.ID, Name: "prod", State: "Running", ClusterType: "CloudManaged",
				ZoneID: zoneID, ZoneName: "zone1", Account: "acme", DomainID: domainID, Domain: "ROOT",
				NetworkID: "net-prod", Created: created, ControlNodes: 1, WorkerNodes: 1, EtcdNodes: 1,
				Mapped: mapped, SSH: collector.SSHTarget{Host: publicIP, Port: 2222}}
			if release == cloudstacktest.Release414 {
				want.Created = collector.Cluster{}.Created // 4.14 sends no created
			}
			if release != cloudstacktest.Release422 {
				want.EtcdNodes = 0 // etcdnodes arrive in 4.21; the VM is recognised by its name
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), ignoreRules); diff != "" {
				t.Errorf("cluster (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInventorySSHTargetReleases checks the SSH target and login user where the releases differ:
// a 4.14 cluster without a rule is reached on its network's source NAT address; a VPC-tier
// cluster (4.18.1+) on the address and port of its control VM's rule, not on the answer's
// ipaddress; an upgraded cluster logs in as its controlNodeLoginUser detail.
func TestInventorySSHTargetReleases(t *testing.T) {
	const vpcIP, vpcIPID = "198.51.100.7", "40000000-0000-4000-8000-000000000077"
	tests := []struct {
		name     string
		release  string
		ip       bool // the cluster answer names publicIP
		rule     *cloudstacktest.PortForwardingRule
		natIP    bool // the network has a source NAT address
		user     string
		want     collector.SSHTarget
		wantNATs int // listPublicIpAddresses calls
	}{
		{name: "4.14 without a rule: source NAT on 2222", release: cloudstacktest.Release414, natIP: true,
			want: collector.SSHTarget{Host: publicIP, Port: 2222}, wantNATs: 1},
		{name: "4.14 with a rule: its address and port", release: cloudstacktest.Release414, natIP: true,
			rule: &cloudstacktest.PortForwardingRule{IPAddressID: publicIPID, IPAddress: publicIP, PublicPort: 2224, PrivatePort: 22},
			want: collector.SSHTarget{Host: publicIP, Port: 2224}},
		{name: "VPC tier: the rule's own public IP", release: cloudstacktest.Release418, ip: true,
			rule: &cloudstacktest.PortForwardingRule{IPAddressID: vpcIPID, IPAddress: vpcIP, PublicPort: 2222, PrivatePort: 22},
			want: collector.SSHTarget{Host: vpcIP, Port: 2222}},
		{name: "VPC tier without ipaddress", release: cloudstacktest.Release422,
			rule: &cloudstacktest.PortForwardingRule{IPAddressID: vpcIPID, IPAddress: vpcIP, PublicPort: 2223, PrivatePort: 22},
			want: collector.SSHTarget{Host: vpcIP, Port: 2223}},
		{name: "upgraded -master cluster logs in as core", release: cloudstacktest.Release422, ip: true, user: "core",
			want: collector.SSHTarget{Host: publicIP, Port: 2222, User: "core"}},
		{name: "4.14 login user from the VM list", release: cloudstacktest.Release414, ip: true, natIP: true, user: "core",
			want: collector.SSHTarget{Host: publicIP, Port: 2222, User: "core"}, wantNATs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				c := accountCluster("prod")
				if tt.ip {
					c.IPAddress, c.IPAddressID = publicIP, publicIPID
				}
				k := addCKS(w, c, 1, 1, 0)
				if tt.user != "" {
					for _, vm := range k.vms {
						vm.Details = map[string]string{"controlNodeLoginUser": tt.user}
					}
				}
				if tt.natIP {
					w.PublicIPs = append(w.PublicIPs,
						&cloudstacktest.PublicIP{ID: "ip-other", Address: "192.0.2.99", NetworkID: "net-other", SourceNAT: true, Account: "acme"},
						&cloudstacktest.PublicIP{ID: publicIPID, Address: publicIP, NetworkID: c.NetworkID, SourceNAT: true, Account: "acme"})
				}
				if tt.rule != nil {
					r := *tt.rule
					r.VirtualMachineID, r.NetworkID, r.Account = k.vms[0].ID, c.NetworkID, c.Account
					w.AddPortForwardingRule(r)
				}
			})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			if len(inv.Clusters) != 1 {
				t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
			}
			if diff := cmp.Diff(tt.want, inv.Clusters[0].SSH); diff != "" {
				t.Errorf("SSH target (-want +got):\n%s", diff)
			}
			if n := s.CallCount("listPublicIpAddresses"); n != tt.wantNATs {
				t.Errorf("got %d listPublicIpAddresses calls, want %d", n, tt.wantNATs)
			}
		})
	}
}

// TestInventoryExtraDHCPOption checks that a cluster VM whose NIC carries extra DHCP options
// (NicExtraDhcpOptionResponse objects, which cloudstack-go v2.19.0 declares as []string) is read
// like any other instead of failing the page.
func TestInventoryExtraDHCPOption(t *testing.T) {
	s := startFake(t, func(w *cloudstacktest.World) {
		k := addCKS(w, accountCluster("prod"), 1, 1, 0)
		k.vms[1].ExtraDHCPOptions = []cloudstacktest.ExtraDHCPOption{{Code: 66, Name: "tftp-server-name", Value: "10.0.0.1"}}
	})
	// The SDK's own types cannot read this answer: what the test guards against is real.
	sdk := cs.NewClient(s.Endpoint(), s.APIKey(), s.SecretKey(), false)
	p := sdk.Kubernetes.NewListKubernetesClustersParams()
	p.SetListall(true)
	if _, err := sdk.Kubernetes.ListKubernetesClusters(p); err == nil {
		t.Error("cloudstack-go read the extra DHCP option; the fake no longer sends it as CloudStack does")
	}

	inv := mustInventory(t, newSource(t, s, api.Options{}))
	if len(inv.Clusters) != 1 || len(inv.Clusters[0].Mapped) != 2 || len(inv.VMs) != 2 {
		t.Fatalf("got %+v, want one cluster with its two VMs", inv)
	}
}
