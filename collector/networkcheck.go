package collector

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CompareRules is the network side of one cluster: the rules CKS created on the cluster's
// network, and needs for its next scale, upgrade or delete, that are gone. It is a pure function
// of the cluster, its VM map and the rules its source read (Cluster.Rules), called only when they
// were read. What CKS creates, read in KubernetesClusterResourceModifierActionWorker and
// KubernetesClusterStartWorker at 4.19.0.0, 4.20.0.0 and 4.21.0.0:
//
//   - every node (control, worker, external, and from 4.21 etcd) has a port-forwarding rule from
//     a public port (from 2222; etcd nodes from 50000) to its port 22: CKS's upgrade reaches node
//     i at port 2222 + i (KubernetesClusterUpgradeWorker), and a scale or delete revokes it;
//   - the API port 6443 has a load-balancer rule (api-lb) over the control VMs, or, on a VPC
//     tier, a port-forwarding rule 6443 -> 6443 to the first control VM (4.19; from 4.20 when
//     the tier's offering is not in conserve mode); either one is taken;
//   - on an isolated network, firewall rules open the nodes' SSH ports (one rule from 2222, which
//     a scale revokes and creates again), each etcd node's port (4.21) and 6443;
//   - on a VPC tier whose ACL is not default_allow, ACL items allow 6443 and 22.
//
// Rules a tenant adds never make a finding, and a rule counts only on the cluster's own network
// and, for a node, only when it forwards to that node's VM. VMs younger than grace, and VMs on
// their way out, are not looked at.
func CompareRules(c Cluster, now time.Time, grace time.Duration) []Finding {
	r := c.Rules
	if !r.Read() || (r.Type != NetworkIsolated && r.Type != NetworkVPCTier) {
		return nil
	}
	isolated := r.Type == NetworkIsolated
	byVM := make(map[string][]ForwardingRule)
	for _, p := range r.Forwarding {
		if p.PrivatePort == sshPort && tcp(p.Protocol) {
			byVM[p.VMID] = append(byVM[p.VMID], p)
		}
	}
	var out []Finding
	var gaps []string   // the cluster's own rules that are gone
	var closed []string // node SSH ports that no firewall rule opens
	sshAddress := ""
	for _, m := range c.Mapped {
		if m.Missing || m.Removed || expunging(m.State) || m.ID == "" || (!m.Created.IsZero() && now.Sub(m.Created) < grace) {
			continue
		}
		rules := byVM[m.ID]
		if len(rules) == 0 {
			out = append(out, Finding{Kind: KindNetworkRuleMissing, VMID: m.ID, VMName: m.Name, Message: sshRuleMessage(c.Name, m)})
			continue
		}
		p := rules[0]
		if sshAddress == "" && !m.Etcd {
			sshAddress = p.AddressID
		}
		if isolated && !slices.ContainsFunc(rules, func(p ForwardingRule) bool { return r.opens(p.AddressID, p.PublicPort) }) {
			closed = append(closed, fmt.Sprintf("%d (VM %s)", p.PublicPort, m.Name))
		}
	}
	if isolated && !r.sshFirewall(sshAddress) {
		gaps = append(gaps, "the firewall rule opening the nodes' SSH ports from 2222: a scale fails with \"Firewall rule for node SSH access can't be provisioned\" (KubernetesClusterScaleWorker; apache/cloudstack#11779)")
	} else if len(closed) > 0 {
		gaps = append(gaps, "a firewall rule opening SSH port "+strings.Join(closed, ", ")+": CKS's upgrade cannot reach the node")
	}
	apiAddress, apiGaps := compareAPIRules(c, r)
	gaps = append(gaps, apiGaps...)
	if isolated && apiAddress != "" && !r.opens(apiAddress, apiPort) {
		gaps = append(gaps, "the firewall rule of the API port 6443: the cluster's Kubernetes API is unreachable from outside its network")
	}
	if r.Type == NetworkVPCTier && !r.ACLDefaultAllow {
		for _, port := range []int{apiPort, sshPort} {
			if !r.allows(port) {
				gaps = append(gaps, "the network ACL item allowing port "+strconv.Itoa(port)+" into the tier")
			}
		}
	}
	if len(gaps) > 0 {
		out = append(out, Finding{Kind: KindNetworkRuleMissing, Message: fmt.Sprintf("Network rules CKS created for Kubernetes cluster %s are gone: %s", c.Name, strings.Join(gaps, "; "))})
	}
	sortFindings(out)
	return out
}

// compareAPIRules returns the address of the cluster's API rule and what of it is gone: a
// load-balancer rule 6443 -> 6443 with every control VM behind it, or a port-forwarding rule
// 6443 -> 6443 to a control VM (VPC tiers of 4.19, and of offerings not in conserve mode).
func compareAPIRules(c Cluster, r *NetworkRules) (string, []string) {
	control := make(map[string]string) // live control VMs by uuid
	mapped := make(map[string]bool)
	for _, m := range c.Mapped {
		mapped[m.ID] = m.ID != ""
		if isControl(m) {
			control[m.ID] = m.Name
		}
	}
	for _, p := range r.Forwarding {
		if p.PublicPort == apiPort && p.PrivatePort == apiPort && tcp(p.Protocol) && mapped[p.VMID] {
			return p.AddressID, nil
		}
	}
	for _, lb := range r.Balancing {
		if lb.PublicPort != apiPort || lb.PrivatePort != apiPort || !(lb.Protocol == "" || tcp(lb.Protocol)) {
			continue
		}
		var outside []string
		for id, name := range control {
			if !slices.Contains(lb.VMIDs, id) {
				outside = append(outside, name)
			}
		}
		if len(outside) == 0 || !lb.VMsRead {
			return lb.AddressID, nil
		}
		slices.Sort(outside)
		return lb.AddressID, []string{"control VM " + strings.Join(outside, ", ") + " behind the load-balancer rule api-lb of the API port 6443: the Kubernetes API does not reach it"}
	}
	return "", []string{"the load-balancer rule api-lb (or on a VPC tier the port-forwarding rule 6443 -> 6443) of the API port 6443: the cluster's Kubernetes API, the server of its kubeconfig, is unreachable from outside its network, and starting the cluster again waits for it and fails"}
}

// isControl reports whether a map row is a live control VM, by its name (isControlName): a
// control VM a tenant renamed is not expected behind the API's load-balancer rule, so a rename
// never makes a finding of another VM.
func isControl(m MappedVM) bool {
	if m.Missing || m.Removed || expunging(m.State) || m.Etcd || m.External || m.ID == "" {
		return false
	}
	return isControlName(m.Name)
}

// sshRuleMessage is the message of a node whose SSH port-forwarding rule is gone.
func sshRuleMessage(cluster string, m MappedVM) string {
	from := "2222 + i"
	if m.Etcd {
		from = "50000 + i"
	}
	return fmt.Sprintf("The port-forwarding rule of VM %s (%s) of Kubernetes cluster %s from its public SSH port (%s) to port 22 is gone: "+
		"CKS's upgrade reaches the node through it and fails there, and a scale or delete that revokes it finds nothing to revoke", m.Name, m.ID, cluster, from)
}
