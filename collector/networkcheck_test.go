package collector

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var rulesNow = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// rulesCluster is a cluster of one control VM and two workers (and, with etcd, one etcd node of
// 4.21) with the rules CKS creates for it on a network of the type, as the release makes them:
// on an isolated network the SSH firewall range from 2222, a port-forwarding rule per node, the
// API's firewall rule and its load-balancer rule api-lb; on a VPC tier the ACL items of 6443 and
// 22, the API's port-forwarding rule (4.19, or an offering not in conserve mode) or load-balancer
// rule (conserve mode, from 4.20), and the SSH rules.
func rulesCluster(typ NetworkType, apiLB, etcd bool) Cluster {
	old := rulesNow.Add(-24 * time.Hour)
	c := Cluster{ID: "k1", Name: "prod", State: "Running", ControlNodes: 1, WorkerNodes: 2, Mapped: []MappedVM{
		{ID: "c1", Name: "prod-control-18fe7619001", State: "Running", Created: old},
		{ID: "w1", Name: "prod-node-18fe7619002", State: "Running", Created: old},
		{ID: "w2", Name: "prod-node-18fe7619003", State: "Stopped", Created: old},
	}}
	r := &NetworkRules{Type: typ}
	pf := func(id, vm string, public, private int) ForwardingRule {
		return ForwardingRule{ID: id, AddressID: "ip1", Address: "203.0.113.10", Protocol: "tcp", VMID: vm, PublicPort: public, PrivatePort: private}
	}
	r.Forwarding = []ForwardingRule{pf("pf1", "c1", 2222, 22), pf("pf2", "w1", 2223, 22), pf("pf3", "w2", 2224, 22)}
	if etcd {
		c.EtcdNodes = 1
		c.Mapped = append(c.Mapped, MappedVM{ID: "e1", Name: "prod-etcd-1-18fe7619004", State: "Running", Created: old, Etcd: true})
		r.Forwarding = append(r.Forwarding, pf("pf4", "e1", 50000, 22))
	}
	lb := BalancingRule{ID: "lb1", AddressID: "ip1", Protocol: "tcp", PublicPort: 6443, PrivatePort: 6443, VMIDs: []string{"c1"}, VMsRead: true}
	switch typ {
	case NetworkIsolated:
		r.Firewall = []FirewallRule{{ID: "fw1", AddressID: "ip1", Protocol: "tcp", StartPort: 2222, EndPort: 2224},
			{ID: "fw2", AddressID: "ip1", Protocol: "tcp", StartPort: 6443, EndPort: 6443}}
		if etcd {
			r.Firewall = append(r.Firewall, FirewallRule{ID: "fw3", AddressID: "ip1", Protocol: "tcp", StartPort: 50000, EndPort: 50000})
		}
		r.Balancing = []BalancingRule{lb}
	case NetworkVPCTier:
		r.ACL = []ACLItem{{ID: "acl1", Protocol: "tcp", StartPort: 6443, EndPort: 6443, Ingress: true, Allow: true},
			{ID: "acl2", Protocol: "tcp", StartPort: 22, EndPort: 22, Ingress: true, Allow: true}}
		if apiLB {
			r.Balancing = []BalancingRule{lb}
		} else {
			r.Forwarding = append(r.Forwarding, pf("pf9", "c1", 6443, 6443))
		}
	}
	c.Rules = r
	return c
}

func without[T any](s []T, drop func(T) bool) []T {
	return slices.DeleteFunc(slices.Clone(s), drop)
}

// TestCompareRules holds the rows of network_rule_missing (docs/scenarios.md): what CKS creates
// on each network type and release matches, rules a tenant adds never count, and each rule that
// is gone is named with the operation that fails.
func TestCompareRules(t *testing.T) {
	t.Parallel()
	type want struct {
		vmID string // "" for the cluster's finding
		says string
	}
	tests := []struct {
		name string
		c    func() Cluster
		want []want
	}{
		{name: "isolated network as CKS made it (4.19, 4.20)", c: func() Cluster { return rulesCluster(NetworkIsolated, true, false) }},
		{name: "isolated network with an etcd node (4.21)", c: func() Cluster { return rulesCluster(NetworkIsolated, true, true) }},
		{name: "VPC tier with the API's port-forwarding rule (4.19; offering not in conserve mode)", c: func() Cluster { return rulesCluster(NetworkVPCTier, false, false) }},
		{name: "VPC tier with the API's load-balancer rule (conserve mode, 4.20 on)", c: func() Cluster { return rulesCluster(NetworkVPCTier, true, true) }},
		{name: "VPC tier whose ACL is default_allow: no ACL items", c: func() Cluster {
			c := rulesCluster(NetworkVPCTier, true, false)
			c.Rules.ACL, c.Rules.ACLDefaultAllow = nil, true
			return c
		}},
		{name: "shared or routed network: CKS creates no rules", c: func() Cluster {
			c := rulesCluster(NetworkDirect, true, false)
			c.Rules.Forwarding = nil
			return c
		}},
		{name: "rules not read: nothing is compared", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules = &NetworkRules{Err: "listFirewallRules: 431"}
			return c
		}},
		{name: "a tenant's own rules count for nothing and make nothing", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			r := c.Rules
			r.Forwarding = append(r.Forwarding, ForwardingRule{ID: "t1", AddressID: "ip2", Protocol: "tcp", VMID: "w1", PublicPort: 8080, PrivatePort: 80})
			r.Firewall = append(r.Firewall, FirewallRule{ID: "t2", AddressID: "ip2", Protocol: "tcp", StartPort: 80, EndPort: 8080})
			r.Balancing = append(r.Balancing, BalancingRule{ID: "t3", AddressID: "ip2", Protocol: "tcp", PublicPort: 443, PrivatePort: 443})
			return c
		}},
		{name: "a node's SSH rule is gone", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Forwarding = without(c.Rules.Forwarding, func(p ForwardingRule) bool { return p.VMID == "w2" })
			return c
		}, want: []want{{"w2", "VM prod-node-18fe7619003 (w2) of Kubernetes cluster prod from its public SSH port (2222 + i) to port 22 is gone: CKS's upgrade"}}},
		{name: "a rule to a VM outside the map stands in for no node", c: func() Cluster {
			c := rulesCluster(NetworkVPCTier, false, false)
			c.Rules.Forwarding = without(c.Rules.Forwarding, func(p ForwardingRule) bool { return p.VMID == "w2" })
			c.Rules.Forwarding = append(c.Rules.Forwarding, ForwardingRule{ID: "x", AddressID: "ip1", Protocol: "tcp", VMID: "another-tenants-vm", PublicPort: 2224, PrivatePort: 22})
			return c
		}, want: []want{{"w2", "port-forwarding rule of VM prod-node-18fe7619003"}}},
		{name: "an etcd node's SSH rule is gone (4.21)", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, true)
			c.Rules.Forwarding = without(c.Rules.Forwarding, func(p ForwardingRule) bool { return p.VMID == "e1" })
			return c
		}, want: []want{{"e1", "(50000 + i) to port 22 is gone"}}},
		{name: "the SSH firewall rule is gone: scale fails (#11779)", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Firewall = without(c.Rules.Firewall, func(f FirewallRule) bool { return f.StartPort == 2222 })
			return c
		}, want: []want{{"", "the firewall rule opening the nodes' SSH ports from 2222: a scale fails with \"Firewall rule for node SSH access can't be provisioned\""}}},
		{name: "the SSH firewall rule narrowed: a node's port is closed", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Firewall[0].EndPort = 2223
			return c
		}, want: []want{{"", "a firewall rule opening SSH port 2224 (VM prod-node-18fe7619003): CKS's upgrade cannot reach the node"}}},
		{name: "the API's load-balancer rule is gone", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Balancing = nil
			return c
		}, want: []want{{"", "the load-balancer rule api-lb (or on a VPC tier the port-forwarding rule 6443 -> 6443) of the API port 6443: the cluster's Kubernetes API"}}},
		{name: "a control VM is not behind api-lb", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Balancing[0].VMIDs = []string{"w1"}
			return c
		}, want: []want{{"", "control VM prod-control-18fe7619001 behind the load-balancer rule api-lb"}}},
		{name: "the VMs behind api-lb not read (the API source): not compared", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Balancing[0].VMIDs, c.Rules.Balancing[0].VMsRead = nil, false
			return c
		}},
		{name: "the API's firewall rule is gone", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Rules.Firewall = without(c.Rules.Firewall, func(f FirewallRule) bool { return f.StartPort == 6443 })
			return c
		}, want: []want{{"", "the firewall rule of the API port 6443"}}},
		{name: "the VPC tier's ACL item for SSH is gone", c: func() Cluster {
			c := rulesCluster(NetworkVPCTier, true, false)
			c.Rules.ACL = c.Rules.ACL[:1]
			return c
		}, want: []want{{"", "the network ACL item allowing port 22 into the tier"}}},
		{name: "an ACL item of every protocol stands in for CKS's", c: func() Cluster {
			c := rulesCluster(NetworkVPCTier, true, false)
			c.Rules.ACL = []ACLItem{{ID: "all", Protocol: "all", Ingress: true, Allow: true}}
			return c
		}},
		{name: "an egress or deny item does not", c: func() Cluster {
			c := rulesCluster(NetworkVPCTier, true, false)
			c.Rules.ACL = []ACLItem{{ID: "e", Protocol: "all", Allow: true}, {ID: "d", Protocol: "tcp", StartPort: 1, EndPort: 65535, Ingress: true}}
			return c
		}, want: []want{{"", "the network ACL item allowing port 6443 into the tier; the network ACL item allowing port 22"}}},
		{name: "a young or departing VM without a rule is not looked at", c: func() Cluster {
			c := rulesCluster(NetworkIsolated, true, false)
			c.Mapped = append(c.Mapped, MappedVM{ID: "w3", Name: "prod-node-18fe7619005", State: "Running", Created: rulesNow.Add(-time.Minute)},
				MappedVM{ID: "w4", Name: "prod-node-18fe7619006", State: "Expunging"}, MappedVM{Missing: true, InternalID: 7})
			return c
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CompareRules(tt.c(), rulesNow, 10*time.Minute)
			if len(got) != len(tt.want) {
				t.Fatalf("findings %+v, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				f := got[i]
				if f.Kind != KindNetworkRuleMissing || f.VMID != w.vmID || !strings.Contains(f.Message, w.says) || !strings.Contains(f.Message, "prod") {
					t.Errorf("finding %+v, want vm_id %q and a message saying %q", f, w.vmID, w.says)
				}
				if f.Kind.Side() != SideNetwork {
					t.Errorf("side %s", f.Kind.Side())
				}
			}
		})
	}
}

// TestAcceptNetworkRule: an accept rule of network_rule_missing without a vm accepts the
// cluster's own finding only, one with a vm that node's only.
func TestAcceptNetworkRule(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: uuidA, Name: "prod"}
	node := Finding{Kind: KindNetworkRuleMissing, VMID: "w2", VMName: "prod-node-2", Message: "node"}
	own := Finding{Kind: KindNetworkRuleMissing, Message: "cluster"}
	in := []ClusterStatus{ClusterStatus{Cluster: c, Checked: true}.With(node, own)}
	for _, tc := range []struct {
		vm   string
		want string
	}{{"", own.Key()}, {"prod-node-2", node.Key()}, {"w2", node.Key()}} {
		got, _ := Accept(in, []Cluster{c}, []AcceptRule{{Cluster: "prod", Kind: KindNetworkRuleMissing, VM: tc.vm, Reason: "known"}}, rulesNow)
		if len(got[0].Accepted) != 1 || got[0].Accepted[0].Key() != tc.want || len(got[0].On(SideNetwork)) != 1 {
			t.Errorf("vm %q: accepted %v, left %v; want %s accepted", tc.vm, got[0].Accepted, got[0].On(SideNetwork), tc.want)
		}
	}
}
