package cloudstacktest

import (
	"fmt"
	"strings"
	"time"
)

// The domain and zone of what BuildCluster builds unless the spec names others.
const (
	RootDomainID = "d0000000-0000-4000-8000-000000000001" // ROOT
	Zone1ID      = "20000000-0000-4000-8000-000000000001" // zone1
)

// ClusterSpec describes a CKS cluster as createKubernetesCluster leaves it, for BuildCluster.
type ClusterSpec struct {
	Name string
	// Account owns the cluster; or ProjectID and Project name the project that does, and the
	// API names the project, not its account.
	Account            string
	ProjectID, Project string
	Control            int
	Workers            int
	Etcd               int
	// Shared puts the cluster on a shared network: no source NAT address, no port forwarding; the
	// nodes are reached on their own addresses.
	Shared bool
	// VPC puts the cluster on a VPC tier whose ACL list is ACLID (DefaultAllowACL: default_allow;
	// empty: a list of the tier's own VPC, named ACLName or <name>-acl); Conserve is a tier
	// offering in conserve mode, where CKS balances the API (from 4.20) instead of forwarding it.
	VPC      bool
	ACLID    string
	ACLName  string
	Conserve bool
	Created  time.Time
	State    string // Running when empty
	// Pre416 names the control VMs <name>-master (one) or <name>-master-<i> (several) and the
	// workers <name>-node-<i>, as releases before 4.16 did.
	Pre416 bool
	// LoginUser, when set, is every node's controlNodeLoginUser detail.
	LoginUser string
	// Offering, when set, is the uuid of the cluster's service offering (AddServiceOffering). A
	// node type has one of its own (4.21 on) only where the caller of createKubernetesCluster
	// named one (KubernetesClusterManagerImpl at 4.21.0.0): set Cluster's fields for that.
	Offering string
}

// ClusterSet is what BuildCluster created.
type ClusterSet struct {
	Cluster *Cluster
	Control []*VM
	Workers []*VM
	Etcd    []*VM
	IP      *PublicIP // the network's source NAT address (a VPC tier's public address); nil on a shared network
	Rules   []*PortForwardingRule
	// Firewall, Balancing and ACL are the other rules CKS created (AddCKSRules): the SSH range
	// and the API's firewall rules, the API's load-balancer rule, the tier's ACL items.
	Firewall  []*FirewallRule
	Balancing *LoadBalancerRule
	ACL       []*NetworkACLItem
	Network   *Network
}

// VMs returns the cluster's VMs in map order.
func (s *ClusterSet) VMs() []*VM {
	var out []*VM
	out = append(out, s.Control...)
	out = append(out, s.Etcd...)
	return append(out, s.Workers...)
}

// BuildCluster adds a cluster the way CKS builds one, in ROOT and zone1: its network; VMs named
// <name>-control-<hex>, <name>-etcd-<i>-<hex> and <name>-node-<hex>, each with its own address on
// the network and its map row flagged as CKS flags it, control nodes first, then etcd nodes,
// then workers. On an isolated network (or a VPC tier) also the source NAT address (the tier's
// public address) and a port-forwarding rule per VM, public port 2222+i to 22, in map order, and
// the other rules CKS creates (AddCKSRules); its networks row (Networks) in every case.
func (w *World) BuildCluster(spec ClusterSpec) *ClusterSet {
	if spec.State == "" {
		spec.State = "Running"
	}
	n := len(w.Clusters) + 1
	network := w.newUUID()
	net := &Network{ID: network, GuestType: "Isolated", Account: spec.Account, ProjectID: spec.ProjectID}
	switch {
	case spec.Shared:
		net = &Network{ID: network, GuestType: "Shared"}
	case spec.VPC:
		net.VPCID, net.ACLID = w.networkUUID(), spec.ACLID
		if net.ACLID == "" {
			net.ACLID = w.networkUUID()
			name := spec.ACLName
			if name == "" {
				name = strings.ToLower(spec.Name) + "-acl"
			}
			w.NetworkACLLists = append(w.NetworkACLLists, &NetworkACLList{ID: net.ACLID, Name: name, VPCID: net.VPCID,
				Account: spec.Account, ProjectID: spec.ProjectID})
		}
	}
	w.Networks = append(w.Networks, net)
	c := Cluster{Name: spec.Name, State: spec.State, ZoneID: Zone1ID, ZoneName: "zone1", Account: spec.Account,
		DomainID: RootDomainID, Domain: "ROOT", ProjectID: spec.ProjectID, Project: spec.Project, NetworkID: network,
		ControlNodes: int64(spec.Control), Size: int64(spec.Workers), EtcdNodes: int64(spec.Etcd), Created: spec.Created,
		ServiceOfferingID: spec.Offering}
	s := &ClusterSet{Network: net}
	prefix := strings.ToLower(spec.Name)
	stamp := spec.Created.UnixMilli()
	control := func(i int) string { return fmt.Sprintf("%s-control-%x", prefix, stamp+int64(i)) }
	worker := func(i int) string { return fmt.Sprintf("%s-node-%x", prefix, stamp+200+int64(i)) }
	if spec.Pre416 {
		control = func(i int) string { return Pre416ControlName(prefix, i, spec.Control) }
		worker = func(i int) string { return Pre416WorkerName(prefix, i) }
	}
	add := func(name string) *VM {
		vm := w.AddVM(VM{Name: name, State: "Running", NetworkID: network,
			IPAddress: fmt.Sprintf("10.%d.%d.%d", n/250+1, n%250, len(c.VMMap)+10), Created: spec.Created}.Of(&c))
		c.VMMap = append(c.VMMap, vm.InternalID)
		if !spec.Pre416 {
			vm.Type = CKSNodeType
		}
		if spec.LoginUser != "" {
			vm.Details = map[string]string{"controlNodeLoginUser": spec.LoginUser}
		}
		return vm
	}
	for i := 0; i < spec.Control; i++ {
		vm := add(control(i))
		vm.ControlNode = true
		s.Control = append(s.Control, vm)
	}
	for i := 0; i < spec.Etcd; i++ {
		vm := add(fmt.Sprintf("%s-etcd-%d-%x", spec.Name, i+1, stamp+100+int64(i)))
		vm.EtcdNode = true
		s.Etcd = append(s.Etcd, vm)
	}
	for i := 0; i < spec.Workers; i++ {
		s.Workers = append(s.Workers, add(worker(i)))
	}
	if !spec.Shared {
		s.IP = &PublicIP{ID: w.newUUID(), Address: fmt.Sprintf("203.0.%d.%d", 113+n/250, n%250+1), NetworkID: network,
			SourceNAT: true, Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}
		w.PublicIPs = append(w.PublicIPs, s.IP)
		c.IPAddress, c.IPAddressID = s.IP.Address, s.IP.ID
	}
	s.Cluster = w.AddCluster(c)
	if s.IP != nil {
		for i, vm := range s.VMs() {
			s.Rules = append(s.Rules, w.AddPortForwardingRule(PortForwardingRule{IPAddressID: s.IP.ID, IPAddress: s.IP.Address,
				PublicPort: 2222 + i, PrivatePort: 22, VirtualMachineID: vm.ID, NetworkID: network,
				Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}))
		}
		w.AddCKSRules(s, net, spec.Conserve)
	}
	return s
}

// Of is vm owned as c is, in c's domain and zone (not on its network).
func (vm VM) Of(c *Cluster) VM {
	vm.Account, vm.DomainID, vm.Domain, vm.ProjectID, vm.Project = c.Account, c.DomainID, c.Domain, c.ProjectID, c.Project
	vm.ZoneID, vm.ZoneName = c.ZoneID, c.ZoneName
	return vm
}
