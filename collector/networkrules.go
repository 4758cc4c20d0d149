package collector

import "strings"

// NetworkRules is what a source read of the rules of a cluster's network: the rules whose
// network is the cluster's, as CloudStack records them (never matched by a name a tenant
// chose). A cluster whose Rules are nil, or carry Err, had its rules not read: the network side
// is not compared then, so that rules that could not be read never look missing.
type NetworkRules struct {
	Err string // why the rules of this cluster could not be read; empty when they were
	// Type says which rules CKS creates on the network.
	Type NetworkType
	// ACLDefaultAllow: the VPC tier's ACL is default_allow, and CKS created no ACL items.
	ACLDefaultAllow bool
	Firewall        []FirewallRule
	Forwarding      []ForwardingRule
	Balancing       []BalancingRule
	// ACL holds the items of the VPC tier's network ACL.
	ACL []ACLItem
}

// ErrNetworkNotListed is the Err of a cluster whose network its source does not show (none, or
// removed): there is nothing to compare its rules with.
const ErrNetworkNotListed = "the cluster's network is not listed"

// Read reports whether the rules were read.
func (r *NetworkRules) Read() bool { return r != nil && r.Err == "" }

// NetworkType is the kind of network a cluster runs on, as far as CKS's rules go.
type NetworkType string

// The network types. KubernetesClusterStartWorker.setupKubernetesClusterNetworkRules creates no
// rules on a network of direct access (shared, and from 4.20 routed networks:
// KubernetesClusterManagerImpl.isDirectAccess), the VPC tier's rules on a tier
// (setupKubernetesClusterVpcTierRules), else the isolated network's
// (setupKubernetesClusterIsolatedNetworkRules); read at 4.19.0.0, 4.20.0.0 and 4.21.0.0.
const (
	NetworkIsolated NetworkType = "isolated"
	NetworkVPCTier  NetworkType = "vpc_tier"
	// NetworkDirect: shared, L2 or routed: CKS creates no rules, and none is missing.
	NetworkDirect NetworkType = "direct"
)

// NetworkTypeOf is the type of a network by what both sources read of it: its guest type, whether
// it is a VPC tier, and whether its offering is routed (4.20 on).
func NetworkTypeOf(guestType string, vpcTier, routed bool) NetworkType {
	switch {
	case !strings.EqualFold(guestType, "Isolated") || routed:
		return NetworkDirect
	case vpcTier:
		return NetworkVPCTier
	default:
		return NetworkIsolated
	}
}

// RuleRevoked reports whether a rule's state says it is on its way out (Revoke): CKS's next
// operation does not find it either, so a source leaves it out.
func RuleRevoked(state string) bool { return strings.EqualFold(state, "Revoke") }

// FirewallRule is an ingress firewall rule of a public address (isolated networks).
type FirewallRule struct {
	ID, AddressID, Protocol string
	StartPort, EndPort      int
}

// ForwardingRule is a port-forwarding rule from a public address's port to a VM's port.
type ForwardingRule struct {
	ID, AddressID, Address, Protocol string
	VMID                             string
	PublicPort, PrivatePort          int // the start ports; CKS forwards single ports
}

// BalancingRule is a load-balancer rule of a public address, with the VMs assigned to it
// (load_balancer_vm_map) when VMsRead: the API lists them one rule at a time only
// (listLoadBalancerRuleInstances), which the API source does not do.
type BalancingRule struct {
	ID, AddressID, Protocol string
	PublicPort, PrivatePort int
	VMIDs                   []string
	VMsRead                 bool
}

// ACLItem is an item of a VPC tier's network ACL.
type ACLItem struct {
	ID, Protocol       string
	StartPort, EndPort int
	Ingress, Allow     bool
}

// The ports CKS's rules open (KubernetesClusterActionWorker at 4.19.0.0 to 4.21.0.0:
// CLUSTER_API_PORT 6443, DEFAULT_SSH_PORT 22, CLUSTER_NODES_DEFAULT_START_SSH_PORT 2222; etcd
// nodes from cloud.kubernetes.etcd.node.start.port, 50000 by default, KubernetesClusterService
// at 4.21.0.0).
const (
	apiPort      = 6443
	sshPort      = 22
	etcdFromPort = 50000
)

// APIPort is the port of the cluster's API rules, for a source that reads the VMs of those
// load-balancer rules only.
const APIPort = apiPort

// tcp reports whether a rule's protocol carries TCP: tcp, or every protocol ("all", or an ACL
// item's protocol number 6).
func tcp(protocol string) bool {
	p := strings.ToLower(strings.TrimSpace(protocol))
	return p == "tcp" || p == "all" || p == "6"
}

// covers reports whether ports start..end of protocol hold port; "all" holds every port.
func covers(protocol string, start, end, port int) bool {
	if strings.EqualFold(strings.TrimSpace(protocol), "all") {
		return true
	}
	if end < start {
		end = start
	}
	return tcp(protocol) && start <= port && port <= end
}

// opens reports whether a firewall rule on the address (any address of the network when
// addressID is empty) opens port.
func (r *NetworkRules) opens(addressID string, port int) bool {
	for _, f := range r.Firewall {
		if (addressID == "" || f.AddressID == addressID) && covers(f.Protocol, f.StartPort, f.EndPort, port) {
			return true
		}
	}
	return false
}

// sshFirewall reports whether the address has the firewall rule CKS's scale revokes and
// creates again: a TCP rule starting at port 2222, or, from 4.21, one whose ports are those of
// a port-forwarding rule to port 22 (removeSshFirewallRule at 4.19.0.0 and 4.21.0.0).
func (r *NetworkRules) sshFirewall(addressID string) bool {
	for _, f := range r.Firewall {
		if addressID != "" && f.AddressID != addressID || !tcp(f.Protocol) {
			continue
		}
		if f.StartPort == firstSSHPort {
			return true
		}
		for _, p := range r.Forwarding {
			if p.AddressID == f.AddressID && p.PrivatePort == sshPort && p.PublicPort == f.StartPort {
				return true
			}
		}
	}
	return false
}

// allows reports whether an ingress item of the tier's ACL allows TCP to port.
func (r *NetworkRules) allows(port int) bool {
	for _, a := range r.ACL {
		if a.Ingress && a.Allow && covers(a.Protocol, a.StartPort, a.EndPort, port) {
			return true
		}
	}
	return false
}
