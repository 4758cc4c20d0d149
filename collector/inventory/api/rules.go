package api

import (
	"errors"
	"slices"
	"strings"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// The parts of NetworkResponse, FirewallResponse, LoadBalancerResponse and NetworkACLItemResponse
// the network side reads (api module, read at 4.19.0.0 and 4.21.0.0; ip4routing since 4.20.0,
// set by ApiResponseHelper.createNetworkResponse for a network of a routed offering).
type wireNetwork struct {
	ID         text `json:"id"`
	Type       text `json:"type"`
	VPCID      text `json:"vpcid"`
	ACLID      text `json:"aclid"`
	IP4Routing text `json:"ip4routing"`
}

type wireFirewall struct {
	ID          text   `json:"id"`
	IPAddressID text   `json:"ipaddressid"`
	NetworkID   text   `json:"networkid"`
	Protocol    text   `json:"protocol"`
	StartPort   number `json:"startport"`
	EndPort     number `json:"endport"`
	State       text   `json:"state"`
}

type wireBalancer struct {
	ID          text   `json:"id"`
	PublicIPID  text   `json:"publicipid"`
	NetworkID   text   `json:"networkid"`
	PublicPort  number `json:"publicport"`
	PrivatePort number `json:"privateport"`
	Protocol    text   `json:"protocol"`
	State       text   `json:"state"`
}

// wireACLList is the part of NetworkACLResponse (api module, the same at 4.19.0.0 and 4.21.0.0)
// that tells CloudStack's own lists from a tenant's: ApiResponseHelper.createNetworkACLResponse
// sets vpcid only for a list of a VPC, never for a global one (vpc_id 0).
type wireACLList struct {
	ID    text `json:"id"`
	VPCID text `json:"vpcid"`
}

type wireACLItem struct {
	ID          text   `json:"id"`
	ACLID       text   `json:"aclid"`
	Protocol    text   `json:"protocol"`
	StartPort   number `json:"startport"`
	EndPort     number `json:"endport"`
	TrafficType text   `json:"traffictype"`
	Action      text   `json:"action"`
	State       text   `json:"state"`
}

// networkRules reads the rules of every network the clusters are on, each list once and paged
// over the whole cloud (listNetworks, listFirewallRules, listLoadBalancerRules, and when a network
// is a VPC tier listNetworkACLLists for default_allow and listNetworkACLs; the port-forwarding
// rules are pf, already read), and gives each cluster those of its own network (pf failed with
// pfErr: every cluster's rules unread). Nothing grows with the clusters but by pages: the API has
// no cloud-wide list of a load balancer's VMs (listLoadBalancerRuleInstances takes one rule), so
// whether the control VMs are behind api-lb is left to the database source. A list that fails leaves every cluster's rules
// unread, with the error, and fails nothing else.
func networkRules(c *cs.CloudStackClient, scopes []string, size int, clusters []collector.Cluster, pf []pfRule, pfErr error, in strs) {
	readRules(c, scopes, size, clusters, pf, pfErr, "", in)
}

// readRules is networkRules over every network, or, for a re-check, over network only (the
// lists narrowed by id, networkid and the tier's aclid).
func readRules(c *cs.CloudStackClient, scopes []string, size int, clusters []collector.Cluster, pf []pfRule, pfErr error, network string, in strs) {
	if len(clusters) == 0 || len(scopes) == 0 {
		return
	}
	var byID, onNetwork map[string]string
	if network != "" {
		byID, onNetwork = map[string]string{"id": network}, map[string]string{"networkid": network}
	}
	unread := func(err error) {
		for i := range clusters {
			clusters[i].Rules = &collector.NetworkRules{Err: err.Error()}
		}
	}
	if pfErr != nil {
		unread(pfErr)
		return
	}
	networks, err := listScopes(scopes, "networks", func(n wireNetwork) string { return string(n.ID) },
		listPages(c, "listNetworks", "network", cloudstackapi.Total, size, byID, func(n *wireNetwork) wireNetwork { return *n }))
	if err != nil {
		unread(err)
		return
	}
	if network != "" && len(networks) == 0 {
		unread(errNetworkNotListed) // nothing else to read for it
		return
	}
	firewall, err := listScopes(scopes, "firewall rules", func(f wireFirewall) string { return string(f.ID) },
		listPages(c, "listFirewallRules", "firewallrule", cloudstackapi.Total, size, onNetwork, func(f *wireFirewall) wireFirewall { return *f }))
	if err != nil {
		unread(err)
		return
	}
	balancing, err := listScopes(scopes, "load balancer rules", func(b wireBalancer) string { return string(b.ID) },
		listPages(c, "listLoadBalancerRules", "loadbalancerrule", cloudstackapi.Total, size, onNetwork, func(b *wireBalancer) wireBalancer { return *b }))
	if err != nil {
		unread(err)
		return
	}
	var acl []wireACLItem
	var allow string // the uuid of CloudStack's default_allow list; "" while no tier needs it
	if tier := tierACL(networks); tier != "" {
		if allow, err = defaultAllowACL(c, size); err != nil {
			unread(err)
			return
		}
		// ACL items belong to ACL lists, not to accounts: one listing, without projects.
		var byACL map[string]string
		if network != "" {
			byACL = map[string]string{"aclid": tier}
		}
		if acl, err = listScopes([]string{""}, "network ACL items", func(a wireACLItem) string { return string(a.ID) },
			listPages(c, "listNetworkACLs", "networkacl", cloudstackapi.Total, size, byACL, func(a *wireACLItem) wireACLItem { return *a })); err != nil {
			unread(err)
			return
		}
	}
	byNetwork := groupRules(networks, firewall, balancing, acl, pf, in)
	for _, n := range networks { // CKS created no ACL items on a tier of default_allow
		if r := byNetwork[string(n.ID)]; r.Type == collector.NetworkVPCTier && allow != "" && string(n.ACLID) == allow {
			r.ACLDefaultAllow = true
		}
	}
	for i := range clusters {
		r, ok := byNetwork[clusters[i].NetworkID]
		switch {
		case !ok:
			clusters[i].Rules = &collector.NetworkRules{Err: errNetworkNotListed.Error()}
		case r.Type == collector.NetworkVPCTier && allow == "":
			clusters[i].Rules = &collector.NetworkRules{Err: errDefaultAllowNotListed.Error()}
		default:
			clusters[i].Rules = r
		}
	}
}

// errNetworkNotListed leaves a cluster's rules unread: listNetworks does not show its network.
var errNetworkNotListed = errors.New(collector.ErrNetworkNotListed)

// errDefaultAllowNotListed leaves a VPC tier's rules unread: without CloudStack's default_allow
// list, whether CKS created ACL items on the tier cannot be told (a root admin renamed it).
var errDefaultAllowNotListed = errors.New("CloudStack's ACL list default_allow is not listed")

// defaultAllowName is the name CloudStack gives its list NetworkACL.DEFAULT_ALLOW.
const defaultAllowName = "default_allow"

// defaultAllowACL returns the uuid of CloudStack's ACL list default_allow, "" when it is not
// listed. CKS creates no ACL items on a tier whose list is that one, by its id
// (KubernetesClusterResourceModifierActionWorker.setupKubernetesClusterVpcTierRules compares
// network.getNetworkACLId() with NetworkACL.DEFAULT_ALLOW, 2, at 4.19.0.0 to 4.21.0.0), never
// by its name: createNetworkACLList lets a tenant name a list of its own VPC default_allow
// (NetworkACLServiceImpl.createNetworkACL checks only the VPC's access), and
// updateNetworkACLList rename one. The list is global (schema-410to420.sql line 2041 inserts it
// with vpc_id 0 and a uuid of UUID(), so its uuid differs by installation), and only a root
// admin can create a global list (CreateNetworkACLListCmd.getEntityOwnerId). One request:
// listNetworkACLLists by name, without listall, answers the global lists so named and those of
// the caller's own VPCs, never a tenant's (NetworkACLServiceImpl.listNetworkACLs adds vpc_id 0
// to the VPCs of the accounts AccountManagerImpl.buildACLSearchParameters permits: the caller
// alone without listall), so no tenant adds pages to it; ordered by id from the highest
// (new Filter(..., "id", false, ...)). The ones without a vpcid are global, and the last of them
// has the lowest id, 2, inserted before any other could be.
func defaultAllowACL(c *cs.CloudStackClient, size int) (string, error) {
	only := map[string]string{"name": defaultAllowName, "listall": "false"}
	lists, err := listScopes([]string{""}, "network ACL lists", func(l wireACLList) string { return string(l.ID) },
		listPages(c, "listNetworkACLLists", "networkacllist", cloudstackapi.Total, size, only, func(l *wireACLList) wireACLList { return *l }))
	if err != nil {
		return "", err
	}
	allow := ""
	for _, l := range lists {
		if l.VPCID == "" {
			allow = string(l.ID)
		}
	}
	return allow, nil
}

// tierACL returns the ACL list of a VPC tier among networks ("" when none is a tier), whose
// items are then listed.
func tierACL(networks []wireNetwork) string {
	for _, n := range networks {
		if n.VPCID != "" && n.ACLID != "" {
			return string(n.ACLID)
		}
	}
	return ""
}

// groupRules files each rule under its network (rules being revoked are gone already), and the
// ACL items under the tiers of their list. Each network's rules are its own: a rule counts for a
// cluster only by the network CloudStack records for it. The rules are kept for a cycle and then
// by the snapshot, so the strings they share are kept once (in) and each list is trimmed to its
// length.
func groupRules(networks []wireNetwork, firewall []wireFirewall, balancing []wireBalancer, acl []wireACLItem, pf []pfRule, in strs) map[string]*collector.NetworkRules {
	out := make(map[string]*collector.NetworkRules, len(networks))
	byACL := make(map[string][]*collector.NetworkRules)
	for _, n := range networks {
		r := &collector.NetworkRules{Type: networkType(n)}
		if r.Type == collector.NetworkVPCTier {
			byACL[string(n.ACLID)] = append(byACL[string(n.ACLID)], r)
		}
		out[string(n.ID)] = r
	}
	for _, f := range firewall {
		if r := out[string(f.NetworkID)]; r != nil && !revoked(f.State) {
			r.Firewall = append(r.Firewall, collector.FirewallRule{ID: string(f.ID), AddressID: in.of(f.IPAddressID),
				Protocol: in.of(f.Protocol), StartPort: int(f.StartPort), EndPort: int(f.EndPort)})
		}
	}
	for _, b := range balancing {
		if r := out[string(b.NetworkID)]; r != nil && !revoked(b.State) {
			r.Balancing = append(r.Balancing, collector.BalancingRule{ID: string(b.ID), AddressID: in.of(b.PublicIPID),
				Protocol: in.of(b.Protocol), PublicPort: int(b.PublicPort), PrivatePort: int(b.PrivatePort)})
		}
	}
	for _, a := range acl {
		if revoked(a.State) {
			continue
		}
		item := collector.ACLItem{ID: string(a.ID), Protocol: in.of(a.Protocol), StartPort: int(a.StartPort), EndPort: int(a.EndPort),
			Ingress: strings.EqualFold(string(a.TrafficType), "Ingress"), Allow: strings.EqualFold(string(a.Action), "Allow")}
		for _, r := range byACL[string(a.ACLID)] {
			r.ACL = append(r.ACL, item)
		}
	}
	for _, p := range pf {
		if r := out[p.networkID]; r != nil && !revoked(p.state) {
			r.Forwarding = append(r.Forwarding, collector.ForwardingRule{ID: p.id, AddressID: p.ipAddressID, Address: p.ipAddress,
				Protocol: p.protocol, VMID: p.vmID, PublicPort: atoi(p.publicPort), PrivatePort: atoi(p.privatePort)})
		}
	}
	for _, r := range out {
		r.Firewall, r.Balancing, r.ACL, r.Forwarding = trimmed(r.Firewall), trimmed(r.Balancing), trimmed(r.ACL), trimmed(r.Forwarding)
	}
	return out
}

// trimmed returns s in an array of its length: append leaves up to twice the room.
func trimmed[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return slices.Clone(s)
}

// networkType is what CKS does on a network (collector.NetworkTypeOf): listNetworks answers
// ip4routing for a routed one.
func networkType(n wireNetwork) collector.NetworkType {
	return collector.NetworkTypeOf(string(n.Type), n.VPCID != "", n.IP4Routing != "")
}

// revoked reports whether a listed rule is on its way out (collector.RuleRevoked).
func revoked(state text) bool { return collector.RuleRevoked(string(state)) }
