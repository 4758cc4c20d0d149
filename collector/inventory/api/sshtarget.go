package api

import (
	"strconv"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// pfRule is a port-forwarding rule as far as the SSH port of a control node and the network
// side need it.
type pfRule struct {
	id, ipAddressID, ipAddress, vmID string
	publicPort, privatePort          string
	networkID, protocol              string
	state                            text
}

// rule shrinks a listed port-forwarding rule.
func (in strs) rule(r *wireRule) pfRule {
	protocol := in.of(r.Protocol)
	if protocol == "" {
		protocol = "tcp" // CKS's rules are TCP (provisionPublicIpPortForwardingRule)
	}
	return pfRule{id: string(r.ID), ipAddressID: in.of(r.IPAddressID), ipAddress: in.of(r.IPAddress),
		vmID: in.of(r.VMID), publicPort: string(r.PublicPort), privatePort: string(r.PrivatePort),
		networkID: string(r.NetworkID), protocol: protocol, state: r.State}
}

// atoi reads a port; anything but a port reads as 0, which no rule CKS makes has.
func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 || n > 65535 {
		return 0
	}
	return n
}

// indexRules keeps, per VM uuid, its rules to port 22 in the order they were listed.
func indexRules(rules []pfRule) map[string][]collector.SSHRule {
	out := make(map[string][]collector.SSHRule)
	for _, r := range rules {
		if r.privatePort != "22" || r.vmID == "" {
			continue
		}
		port, err := strconv.Atoi(r.publicPort)
		if err != nil || port <= 0 || port > 65535 {
			continue
		}
		out[r.vmID] = append(out[r.vmID], collector.SSHRule{AddressID: r.ipAddressID, Address: r.ipAddress, Port: port})
	}
	return out
}

// needsSourceNAT reports whether a cluster can only be reached through its network's source NAT
// address: a 4.14 answer names no address (KubernetesClusterResponse has no ipaddress at
// 4.14.0.0), and without a rule to port 22 of its control VM there is nothing else to go by. CKS
// 4.14 only deploys on isolated networks with source NAT (KubernetesClusterManagerImpl
// .validateNetwork at 4.14.0.0), so there is no NIC to fall back on either.
func needsSourceNAT(r clusterRow, rules map[string][]collector.SSHRule) bool {
	return r.legacy && r.controlID != "" && r.ipAddress == "" && len(rules[r.controlID]) == 0
}

// sourceNATByNetwork maps a network uuid to its source NAT address.
func sourceNATByNetwork(ips []wireIP) map[string]string {
	out := make(map[string]string)
	for _, ip := range ips {
		if ip.SourceNAT && ip.NetworkID != "" && ip.IPAddress != "" {
			out[string(ip.NetworkID)] = string(ip.IPAddress)
		}
	}
	return out
}

// scopesOf returns the scopes ("" and "-1") of the clusters for which want holds.
func (s *Source) scopesOf(clusters []clusterRow, want func(clusterRow) bool) []string {
	var account, projects bool
	for _, r := range clusters {
		if !want(r) {
			continue
		}
		if r.cluster.ProjectID != "" {
			projects = true
		} else {
			account = true
		}
	}
	var scopes []string
	if account {
		scopes = append(scopes, "")
	}
	if projects && s.opts.IncludeProjects {
		scopes = append(scopes, "-1")
	}
	return scopes
}

// addClusters adds each cluster once (the scopes may overlap) with its SSH target.
func (s *Source) addClusters(inv *collector.Inventory, clusters []clusterRow, rules map[string][]collector.SSHRule, nat map[string]string) {
	inv.Clusters = make([]collector.Cluster, 0, len(clusters))
	seen := make(map[string]bool, len(clusters))
	for _, r := range clusters {
		if seen[r.cluster.ID] {
			continue
		}
		seen[r.cluster.ID] = true
		c := r.cluster
		c.SSH = s.sshTarget(r, rules[r.controlID], nat[c.NetworkID])
		inv.Clusters = append(inv.Clusters, c)
	}
}

// sshTarget reaches the first control node (collector.ReachControl); a 4.14 answer names no
// public address, so its network's source NAT address stands in.
func (s *Source) sshTarget(r clusterRow, rules []collector.SSHRule, sourceNAT string) collector.SSHTarget {
	if r.controlID == "" {
		return collector.SSHTarget{}
	}
	public := r.ipAddress
	if public == "" {
		public = sourceNAT
	}
	t := collector.SSHTarget{User: r.controlUser}
	t.Host, t.Port = collector.ReachControl(rules, r.ipAddressID, public, r.controlNIC)
	if s.opts.SSHPort != 0 {
		t.Port = s.opts.SSHPort
	}
	return t
}
