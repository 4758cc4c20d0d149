package world

import "github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"

// ruleCounts are the network rules of one cluster, by list.
type ruleCounts struct {
	forwarding, firewall, balancing int
}

// addRules gives cluster c, whose first VM is its control node, the network rules CKS creates
// on an isolated network: a port-forwarding rule to port 22 of every VM (the control VM's from
// the port of its SSH server, sshPort, the others' from 2223), its networks row, and what
// cloudstacktest.World.AddCKSRules writes as CKS does (the firewall rule of the SSH range from
// 2222 and of 6443, the API's load-balancer rule api-lb), with a firewall rule opening sshPort.
// withoutAPIFirewall deletes the firewall rule of 6443 afterwards, as a tenant may: the world's
// network_rule_missing.
func addRules(cw *cloudstacktest.World, c *cloudstacktest.Cluster, vms []*cloudstacktest.VM, sshPort int, withoutAPIFirewall bool) ruleCounts {
	n := &cloudstacktest.Network{ID: c.NetworkID, GuestType: "Isolated", Account: c.Account, ProjectID: c.ProjectID}
	cw.Networks = append(cw.Networks, n)
	set := &cloudstacktest.ClusterSet{Cluster: c, Control: vms[:1], Workers: vms[1:], Network: n,
		IP: &cloudstacktest.PublicIP{ID: c.IPAddressID, Address: c.IPAddress}}
	for k, v := range vms {
		port := 2222 + k
		if k == 0 {
			port = sshPort
		}
		r := &cloudstacktest.PortForwardingRule{ID: uuid(kindRule, len(cw.PortForwardingRules)+1), IPAddressID: c.IPAddressID,
			IPAddress: c.IPAddress, PublicPort: port, PrivatePort: 22, VirtualMachineID: v.ID, NetworkID: c.NetworkID,
			Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}
		cw.PortForwardingRules = append(cw.PortForwardingRules, r)
		set.Rules = append(set.Rules, r)
	}
	cw.AddCKSRules(set, n, false)
	cw.FirewallRules = append(cw.FirewallRules, &cloudstacktest.FirewallRule{ID: uuid(kindFirewall, int(c.InternalID)),
		IPAddressID: c.IPAddressID, IPAddress: c.IPAddress, NetworkID: c.NetworkID, Protocol: "tcp", StartPort: sshPort, EndPort: sshPort,
		Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID})
	out := ruleCounts{forwarding: len(set.Rules), firewall: len(set.Firewall) + 1}
	if set.Balancing != nil {
		out.balancing = 1
	}
	if withoutAPIFirewall {
		for _, f := range set.Firewall {
			if f.StartPort == 6443 {
				if _, err := cw.RemoveRule(f.ID); err == nil {
					out.firewall--
				}
			}
		}
	}
	return out
}
