package collector

// SSHRule is a port-forwarding rule from a public address to port 22 of a cluster's control VM.
type SSHRule struct {
	AddressID string // the public address's id, as its source names it
	Address   string
	Port      int // the public port
}

// CKS forwards public port 2222 to the first control node, 2222+i to the next VMs
// (KubernetesClusterResourceModifierActionWorker.provisionSshPortForwardingRules).
const firstSSHPort = 2222

// ReachControl returns where kubectl on a cluster's first control node is reached, the way CKS
// reaches it. A rule forwarding to the VM's port 22 gives both the address and the port: on
// isolated networks, on VPC tiers (4.18.1+ reaches those through a public IP of the cluster's own,
// the cluster detail public.ip.id, which may not be the address the API names) and after a
// scale-down moved the port. A rule on the cluster's public address wins over one on another
// address. Without a rule: the cluster's public address on 2222; without one either, the VM's
// own address on port 22, as on shared and routed networks. Both inventory sources use it.
func ReachControl(rules []SSHRule, publicID, public, nic string) (host string, port int) {
	for _, r := range rules {
		if publicID != "" && r.AddressID == publicID && r.Port > 0 {
			if r.Address == "" {
				r.Address = public
			}
			if r.Address != "" {
				return r.Address, r.Port
			}
		}
	}
	for _, r := range rules {
		if r.Address != "" && r.Port > 0 {
			return r.Address, r.Port
		}
	}
	if public != "" {
		return public, firstSSHPort
	}
	return nic, 22
}
