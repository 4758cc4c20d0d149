package collector

// ControlCandidate is a VM of a cluster's map, in map order, as the choice of the SSH target
// sees it.
type ControlCandidate struct {
	Name    string
	State   string
	Control bool // flagged as a control node by the source (the database's control_node, 4.16+)
	Etcd    bool // known to be an etcd node
	// External is a node added with addNodesToKubernetesCluster (4.21+): a worker, never the
	// control node CKS forwards SSH to.
	External bool
}

// FirstControl returns the index of the VM that CKS forwards SSH to, or -1: among the VMs flagged
// as control nodes (when the source knows the flag), the first Running one, else the first;
// otherwise the first Running VM named like a control node of any release (isControlName) that is
// not an etcd node, else the first such VM, else the first Running VM that is neither an etcd nor
// an external node. A Running VM is preferred because a Stopped or Destroyed first control node
// cannot answer. Both inventory sources use it, so they choose the same node.
func FirstControl(c Cluster, vms []ControlCandidate, flagged bool) int {
	etcd := func(v ControlCandidate) bool { return v.Etcd || IsEtcdName(c, v.Name) }
	runningFirst := func(ok func(ControlCandidate) bool) int {
		first := -1
		for i, v := range vms {
			if !ok(v) {
				continue
			}
			if v.State == "Running" {
				return i
			}
			if first < 0 {
				first = i
			}
		}
		return first
	}
	if flagged {
		if i := runningFirst(func(v ControlCandidate) bool { return v.Control }); i >= 0 {
			return i
		}
	}
	if i := runningFirst(func(v ControlCandidate) bool {
		return isControlName(v.Name) && !etcd(v)
	}); i >= 0 {
		return i
	}
	for i, v := range vms {
		if v.State == "Running" && !etcd(v) && !v.External {
			return i
		}
	}
	return -1
}
