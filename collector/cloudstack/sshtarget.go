package cloudstack

import (
	"strconv"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// pfRule is a port-forwarding rule as far as the SSH port of a control node needs it.
type pfRule struct {
	id, ipAddressID, ipAddress, vmID string
	publicPort, privatePort          string
}

func toRule(r *wireRule) pfRule {
	return pfRule{id: string(r.ID), ipAddressID: string(r.IPAddressID), ipAddress: string(r.IPAddress),
		vmID: string(r.VMID), publicPort: string(r.PublicPort), privatePort: string(r.PrivatePort)}
}

// sshRule is where a rule forwards to a VM's port 22.
type sshRule struct {
	ipAddressID, ipAddress string
	port                   int
}

// indexRules keeps, per VM uuid, its rules to port 22 in the order they were listed.
func indexRules(rules []pfRule) map[string][]sshRule {
	out := make(map[string][]sshRule)
	for _, r := range rules {
		if r.privatePort != "22" || r.vmID == "" {
			continue
		}
		port, err := strconv.Atoi(r.publicPort)
		if err != nil || port <= 0 || port > 65535 {
			continue
		}
		out[r.vmID] = append(out[r.vmID], sshRule{ipAddressID: r.ipAddressID, ipAddress: r.ipAddress, port: port})
	}
	return out
}

// needsSourceNAT reports whether a cluster can only be reached through its network's source NAT
// address: a 4.14 answer names no address (KubernetesClusterResponse has no ipaddress at
// 4.14.0.0), and without a rule to port 22 of its control VM there is nothing else to go by. CKS
// 4.14 only deploys on isolated networks with source NAT (KubernetesClusterManagerImpl
// .validateNetwork at 4.14.0.0), so there is no NIC to fall back on either.
func needsSourceNAT(r clusterRow, rules map[string][]sshRule) bool {
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
func (s *Source) addClusters(inv *collector.Inventory, clusters []clusterRow, rules map[string][]sshRule, nat map[string]string) {
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

// sshTarget reaches the first control node the way CKS does. The rule forwarding a public port
// to its port 22 gives both the address and the port, on isolated networks, on VPC tiers (where
// 4.18.1+ uses a public IP of the cluster's own, the cluster detail public.ip.id, not the
// ipaddress of the answer) and after scale-downs that moved the port; a rule on the cluster's
// own public IP wins over one on another address. Without a rule: the cluster's address (or, in
// 4.14, its network's source NAT address) on 2222, the first port CKS forwards; without an
// address: the control node's own NIC, port 22, as on shared networks.
func (s *Source) sshTarget(r clusterRow, rules []sshRule, sourceNAT string) collector.SSHTarget {
	if r.controlID == "" {
		return collector.SSHTarget{}
	}
	t := collector.SSHTarget{User: r.controlUser}
	switch rule, ok := pickRule(r, rules); {
	case ok:
		t.Host, t.Port = rule.ipAddress, rule.port
	case r.ipAddress != "":
		t.Host, t.Port = r.ipAddress, 2222
	case sourceNAT != "":
		t.Host, t.Port = sourceNAT, 2222
	default:
		t.Host, t.Port = r.controlNIC, 22
	}
	if s.opts.SSHPort != 0 {
		t.Port = s.opts.SSHPort
	}
	return t
}

// pickRule returns the control VM's rule on the cluster's public IP, else its first rule that
// names its address.
func pickRule(r clusterRow, rules []sshRule) (sshRule, bool) {
	for _, rule := range rules {
		if r.ipAddressID != "" && rule.ipAddressID == r.ipAddressID {
			if rule.ipAddress == "" {
				rule.ipAddress = r.ipAddress
			}
			return rule, rule.ipAddress != ""
		}
	}
	for _, rule := range rules {
		if rule.ipAddress != "" {
			return rule, true
		}
	}
	return sshRule{}, false
}
