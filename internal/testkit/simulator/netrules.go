package simulator

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// addNetworkRules gives a cluster (ClusterSpec.NetworkRules) its networks row and the rules CKS
// creates on an isolated network besides sshRule, the control VM's, which forwards the port of
// its SSH server: the other VMs' SSH rules from port 2223, the firewall rules (the SSH range from
// 2222, sshRule's port, 6443) and the API's load-balancer rule over the control VMs.
func addNetworkRules(w *cloudstacktest.World, c *cloudstacktest.Cluster, vms []*cloudstacktest.VM, controls int, sshRule *cloudstacktest.PortForwardingRule) {
	n := &cloudstacktest.Network{ID: c.NetworkID, GuestType: "Isolated", Account: c.Account, ProjectID: c.ProjectID}
	w.Networks = append(w.Networks, n)
	set := &cloudstacktest.ClusterSet{Cluster: c, Control: vms[:controls], Workers: vms[controls:], Network: n,
		IP: &cloudstacktest.PublicIP{ID: sshRule.IPAddressID, Address: sshRule.IPAddress}, Rules: []*cloudstacktest.PortForwardingRule{sshRule}}
	for i, vm := range vms[1:] {
		set.Rules = append(set.Rules, w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: sshRule.IPAddressID,
			IPAddress: sshRule.IPAddress, PublicPort: 2223 + i, PrivatePort: 22, VirtualMachineID: vm.ID, NetworkID: c.NetworkID,
			Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID}))
	}
	w.AddCKSRules(set, n, false)
	// The SSH server's firewall rule: the cluster's uuid with its first group replaced, a uuid
	// (firewall_rules.uuid is varchar(40)) of its own.
	w.FirewallRules = append(w.FirewallRules, &cloudstacktest.FirewallRule{ID: "f55f" + c.ID[min(4, len(c.ID)):],
		IPAddressID: sshRule.IPAddressID, IPAddress: sshRule.IPAddress, NetworkID: c.NetworkID, Protocol: "tcp",
		StartPort: sshRule.PublicPort, EndPort: sshRule.PublicPort, Account: c.Account, DomainID: c.DomainID, ProjectID: c.ProjectID})
}

// RemoveSSHRule deletes the port-forwarding rule to port 22 of a cluster's VM, as its tenant may
// (network_rule_missing), and returns what creates it again.
func (s *Simulator) RemoveSSHRule(clusterID, vmName string) (restore func(), err error) {
	var undo func()
	var missing error
	err = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		vm := w.VMByName(vmName)
		if vm == nil {
			missing = fmt.Errorf("%w: no VM %s", ErrNoCluster, vmName)
			return
		}
		for _, r := range w.PortForwardingRules {
			if r.VirtualMachineID == vm.ID && r.PrivatePort == 22 && r.NetworkID == c.NetworkID {
				undo, missing = w.RemoveRule(r.ID)
				return
			}
		}
		missing = fmt.Errorf("%w: no SSH rule of %s", ErrNoCluster, vmName)
	})
	if err == nil {
		err = missing
	}
	if err != nil {
		return nil, err
	}
	return func() { s.CloudStack.Update(func(*cloudstacktest.World) { undo() }) }, nil
}
