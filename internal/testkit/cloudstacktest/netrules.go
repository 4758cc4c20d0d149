package cloudstacktest

import (
	"fmt"
	"slices"
	"strconv"
)

// FirewallRule is a firewall_rules row of purpose Firewall: an ingress rule of a public address
// (isolated networks). EndPort repeats StartPort for one port.
type FirewallRule struct {
	ID, IPAddressID, IPAddress, NetworkID string
	Protocol                              string // tcp, udp, icmp or all
	StartPort, EndPort                    int
	Account, DomainID, ProjectID          string
}

// LoadBalancerRule is a load_balancing_rules row with its load_balancer_vm_map (VMIDs: VM uuids).
type LoadBalancerRule struct {
	ID, Name, PublicIPID, PublicIP, NetworkID string
	PublicPort, PrivatePort                   int
	VMIDs                                     []string
	Account, DomainID, ProjectID              string
}

// NetworkACLItem is a network_acl_item row of the ACL list ACLID.
type NetworkACLItem struct {
	ID, ACLID          string
	Protocol           string // tcp, udp, icmp, all, or a protocol number
	StartPort, EndPort int
	TrafficType        string // Ingress or Egress
	Action             string // Allow or Deny
}

// DefaultAllowACL is the uuid the fake gives CloudStack's default_allow ACL list.
const DefaultAllowACL = "acl00000-0000-4000-8000-000000000002"

// firewallJSON is CloudStack's FirewallResponse.
type firewallJSON struct {
	ID          string `json:"id"`
	Protocol    string `json:"protocol"`
	StartPort   int    `json:"startport,omitempty"`
	EndPort     int    `json:"endport,omitempty"`
	IPAddressID string `json:"ipaddressid"`
	IPAddress   string `json:"ipaddress"`
	NetworkID   string `json:"networkid"`
	State       string `json:"state"`
	CIDRList    string `json:"cidrlist"`
	ForDisplay  bool   `json:"fordisplay"`
}

// loadBalancerJSON is CloudStack's LoadBalancerResponse; ports are strings on the wire.
type loadBalancerJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	PublicIPID  string `json:"publicipid"`
	PublicIP    string `json:"publicip"`
	PublicPort  string `json:"publicport"`
	PrivatePort string `json:"privateport"`
	Algorithm   string `json:"algorithm"`
	NetworkID   string `json:"networkid"`
	Protocol    string `json:"protocol"`
	State       string `json:"state"`
	Account     string `json:"account,omitempty"`
	DomainID    string `json:"domainid,omitempty"`
	ProjectID   string `json:"projectid,omitempty"`
}

// aclItemJSON is CloudStack's NetworkACLItemResponse; ports are strings on the wire.
type aclItemJSON struct {
	ID          string `json:"id"`
	ACLID       string `json:"aclid"`
	Protocol    string `json:"protocol"`
	StartPort   string `json:"startport,omitempty"`
	EndPort     string `json:"endport,omitempty"`
	TrafficType string `json:"traffictype"`
	Action      string `json:"action"`
	State       string `json:"state"`
	CIDRList    string `json:"cidrlist"`
}

// networkJSON is the part of CloudStack's NetworkResponse the fake fills.
type networkJSON struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	VPCID      string `json:"vpcid,omitempty"`
	ACLID      string `json:"aclid,omitempty"`
	ACLName    string `json:"aclname,omitempty"`
	IP4Routing string `json:"ip4routing,omitempty"`
	Account    string `json:"account,omitempty"`
	ProjectID  string `json:"projectid,omitempty"`
}

// listFirewallRules lists firewall rules under the admin ACL. Filters: id, ipaddressid, networkid.
func (s *Server) listFirewallRules(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*FirewallRule
	for _, f := range s.world.FirewallRules {
		switch {
		case f == nil, !s.visible(p, f.Account, f.ProjectID):
		case p.Get("id") != "" && f.ID != p.Get("id"):
		case p.Get("ipaddressid") != "" && f.IPAddressID != p.Get("ipaddressid"):
		case p.Get("networkid") != "" && f.NetworkID != p.Get("networkid"):
		default:
			out = append(out, f)
		}
	}
	return listAnswerOf(r, win, "firewallrule", out, func(f *FirewallRule) firewallJSON {
		return firewallJSON{ID: f.ID, Protocol: f.Protocol, StartPort: f.StartPort, EndPort: f.EndPort, IPAddressID: f.IPAddressID,
			IPAddress: f.IPAddress, NetworkID: f.NetworkID, State: "Active", CIDRList: "0.0.0.0/0", ForDisplay: true}
	}), nil
}

// listLoadBalancerRules lists load-balancer rules under the admin ACL. Filters: id, publicipid,
// networkid.
func (s *Server) listLoadBalancerRules(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*LoadBalancerRule
	for _, lb := range s.world.LoadBalancerRules {
		switch {
		case lb == nil, !s.visible(p, lb.Account, lb.ProjectID):
		case p.Get("id") != "" && lb.ID != p.Get("id"):
		case p.Get("publicipid") != "" && lb.PublicIPID != p.Get("publicipid"):
		case p.Get("networkid") != "" && lb.NetworkID != p.Get("networkid"):
		default:
			out = append(out, lb)
		}
	}
	return listAnswerOf(r, win, "loadbalancerrule", out, func(lb *LoadBalancerRule) loadBalancerJSON {
		return loadBalancerJSON{ID: lb.ID, Name: lb.Name, PublicIPID: lb.PublicIPID, PublicIP: lb.PublicIP,
			PublicPort: strconv.Itoa(lb.PublicPort), PrivatePort: strconv.Itoa(lb.PrivatePort), Algorithm: "roundrobin",
			NetworkID: lb.NetworkID, Protocol: "tcp", State: "Active", Account: lb.Account, DomainID: lb.DomainID, ProjectID: lb.ProjectID}
	}), nil
}

// listNetworkACLs lists the items of every ACL list (the admin's listall), or of aclid.
func (s *Server) listNetworkACLs(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*NetworkACLItem
	for _, a := range s.world.NetworkACLItems {
		if a != nil && (p.Get("aclid") == "" || a.ACLID == p.Get("aclid")) {
			out = append(out, a)
		}
	}
	return listAnswerOf(r, win, "networkacl", out, func(a *NetworkACLItem) aclItemJSON {
		j := aclItemJSON{ID: a.ID, ACLID: a.ACLID, Protocol: a.Protocol, TrafficType: a.TrafficType, Action: a.Action, State: "Active", CIDRList: "0.0.0.0/0"}
		if a.StartPort > 0 {
			j.StartPort, j.EndPort = strconv.Itoa(a.StartPort), strconv.Itoa(a.EndPort)
		}
		return j
	}), nil
}

// listNetworks lists the networks the world describes under the admin ACL. Filters: id.
func (s *Server) listNetworks(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*Network
	for _, n := range s.world.Networks {
		switch {
		case n == nil, !s.visible(p, n.Account, n.ProjectID):
		case p.Get("id") != "" && n.ID != p.Get("id"):
		default:
			out = append(out, n)
		}
	}
	return listAnswerOf(r, win, "network", out, func(n *Network) networkJSON {
		j := networkJSON{ID: n.ID, Type: n.GuestType, VPCID: n.VPCID, ACLID: n.ACLID, Account: n.Account, ProjectID: n.ProjectID}
		if n.ACLID != "" {
			j.ACLName = s.world.aclListName(n.ACLID)
		}
		if n.Routed && s.world.since(20) {
			j.IP4Routing = "Static"
		}
		return j
	}), nil
}

// AddCKSRules adds the rules CKS creates for the cluster of s (its Cluster, Control, IP and Rules,
// the SSH port-forwarding rules), on its network n
// (KubernetesClusterResourceModifierActionWorker at 4.19.0.0 to 4.21.0.0): on an isolated
// network the SSH firewall range from 2222, the port-forwarding rules 2222 + i -> 22 (already in
// s.Rules), the firewall rule of 6443 and the load-balancer rule api-lb over the control VMs; on
// a VPC tier the ACL items of 6443 and 22 (unless default_allow) and the API's load-balancer rule
// (conserve mode) or port-forwarding rule 6443 -> 6443 to the first control VM.
func (w *World) AddCKSRules(s *ClusterSet, n *Network, conserve bool) {
	c, ip := s.Cluster, s.IP
	owned := func(r *FirewallRule) *FirewallRule {
		r.ID, r.IPAddressID, r.IPAddress, r.NetworkID = w.networkUUID(), ip.ID, ip.Address, n.ID
		r.Account, r.DomainID, r.ProjectID, r.Protocol = c.Account, c.DomainID, c.ProjectID, "tcp"
		w.FirewallRules = append(w.FirewallRules, r)
		s.Firewall = append(s.Firewall, r)
		return r
	}
	lb := func() {
		rule := &LoadBalancerRule{ID: w.networkUUID(), Name: "api-lb", PublicIPID: ip.ID, PublicIP: ip.Address, NetworkID: n.ID,
			PublicPort: 6443, PrivatePort: 6443, Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}
		for _, vm := range s.Control {
			rule.VMIDs = append(rule.VMIDs, vm.ID)
		}
		w.LoadBalancerRules = append(w.LoadBalancerRules, rule)
		s.Balancing = rule
	}
	if n.VPCID == "" {
		owned(&FirewallRule{StartPort: 2222, EndPort: 2222 + len(s.Rules) - 1})
		owned(&FirewallRule{StartPort: 6443, EndPort: 6443})
		lb()
		return
	}
	if n.ACLID != DefaultAllowACL {
		for _, port := range []int{6443, 22} {
			item := &NetworkACLItem{ID: w.networkUUID(), ACLID: n.ACLID, Protocol: "tcp", StartPort: port, EndPort: port, TrafficType: "Ingress", Action: "Allow"}
			w.NetworkACLItems = append(w.NetworkACLItems, item)
			s.ACL = append(s.ACL, item)
		}
	}
	if conserve && w.since(20) {
		lb()
		return
	}
	if len(s.Control) > 0 {
		s.Rules = append(s.Rules, w.AddPortForwardingRule(PortForwardingRule{ID: w.networkUUID(), IPAddressID: ip.ID, IPAddress: ip.Address,
			PublicPort: 6443, PrivatePort: 6443, VirtualMachineID: s.Control[0].ID, NetworkID: n.ID,
			Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}))
	}
}

// RemoveRule removes a rule CKS created, by its uuid, from whichever list holds it, as a tenant's
// deleteFirewallRule, deletePortForwardingRule, deleteLoadBalancerRule or deleteNetworkACL does;
// it returns a function that puts it back, at the end of its list.
func (w *World) RemoveRule(id string) (restore func(), err error) {
	if r, ok := remove(&w.PortForwardingRules, func(r *PortForwardingRule) bool { return r.ID == id }); ok {
		return func() { w.PortForwardingRules = append(w.PortForwardingRules, r) }, nil
	}
	if r, ok := remove(&w.FirewallRules, func(r *FirewallRule) bool { return r.ID == id }); ok {
		return func() { w.FirewallRules = append(w.FirewallRules, r) }, nil
	}
	if r, ok := remove(&w.LoadBalancerRules, func(r *LoadBalancerRule) bool { return r.ID == id }); ok {
		return func() { w.LoadBalancerRules = append(w.LoadBalancerRules, r) }, nil
	}
	if r, ok := remove(&w.NetworkACLItems, func(r *NetworkACLItem) bool { return r.ID == id }); ok {
		return func() { w.NetworkACLItems = append(w.NetworkACLItems, r) }, nil
	}
	return nil, fmt.Errorf("no rule %s", id)
}

// remove takes the first row that matches out of rows.
func remove[T any](rows *[]*T, match func(*T) bool) (*T, bool) {
	for i, r := range *rows {
		if r != nil && match(r) {
			*rows = slices.Delete(*rows, i, i+1)
			return r, true
		}
	}
	return nil, false
}

// networkUUID hands out the uuids of the rules, networks and ACL lists BuildCluster adds, from a
// sequence of their own.
func (w *World) networkUUID() string {
	w.ruleSeq++
	return fmt.Sprintf("f1e10000-0000-4000-8000-%012x", w.ruleSeq)
}
