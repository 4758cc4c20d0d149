package collector

import "strings"

// Index finds, for any cluster, the VMs named as its nodes without scanning every VM per
// cluster: VMs are filed once under every prefix their name could belong to.
type Index struct {
	byNodePrefix map[string][]*VM
	byEtcdPrefix map[string][]*VM
	// mapped holds the uuid of every VM in any cluster's map: such a VM is never another
	// cluster's unmapped VM.
	mapped map[string]bool
}

// NewIndex files the inventory's VMs by name prefix.
func NewIndex(inv Inventory) *Index {
	idx := &Index{
		byNodePrefix: make(map[string][]*VM),
		byEtcdPrefix: make(map[string][]*VM),
		mapped:       make(map[string]bool),
	}
	for i := range inv.VMs {
		vm := &inv.VMs[i]
		name := strings.ToLower(vm.Name)
		for _, p := range nodeNamePrefixes(name) {
			idx.byNodePrefix[p] = append(idx.byNodePrefix[p], vm)
		}
		if p, ok := etcdNamePrefix(name); ok {
			idx.byEtcdPrefix[p] = append(idx.byEtcdPrefix[p], vm)
		}
	}
	for _, c := range inv.Clusters {
		for _, m := range c.Mapped {
			if m.ID != "" {
				idx.mapped[m.ID] = true
			}
		}
	}
	return idx
}

// NamedAsNodes returns the VMs that carry the cluster's node or etcd naming, belong to the
// cluster's owner (the same project, or the same account and domain) and are in no cluster's
// map. The network is deliberately not compared: a stray VM in the same account on another
// network is drift too (scenario 7 in docs/scenarios.md).
func (idx *Index) NamedAsNodes(c Cluster) []*VM {
	seen := make(map[string]bool)
	var out []*VM
	add := func(vms []*VM) {
		for _, vm := range vms {
			if seen[vm.ID] || idx.mapped[vm.ID] || !sameOwner(c, vm) {
				continue
			}
			seen[vm.ID] = true
			out = append(out, vm)
		}
	}
	for _, p := range nodePrefixes(c) {
		add(idx.byNodePrefix[p])
	}
	add(idx.byEtcdPrefix[etcdPrefix(c)])
	return out
}

func sameOwner(c Cluster, vm *VM) bool {
	if c.ProjectID != "" || vm.ProjectID != "" {
		return c.ProjectID == vm.ProjectID
	}
	return vm.Account == c.Account && vm.DomainID == c.DomainID
}
