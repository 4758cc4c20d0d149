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
	// deployed holds, by cluster uuid, the VMs CKS deployed (VM.CKSNode) that are in no map and
	// named as no node of any cluster of their owner, each attributed to one cluster of its owner
	// (attributeDeployed).
	deployed map[string][]*VM
}

// NewIndex files the inventory's VMs by name prefix.
func NewIndex(inv Inventory) *Index {
	idx := &Index{
		byNodePrefix: make(map[string][]*VM),
		byEtcdPrefix: make(map[string][]*VM),
		mapped:       make(map[string]bool),
		deployed:     make(map[string][]*VM),
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
	idx.attributeDeployed(inv)
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

// DeployedUnmapped returns the VMs CKS deployed (VM.CKSNode) that are in no cluster's map, carry
// no naming of a cluster of their owner, and are attributed to c (attributeDeployed).
func (idx *Index) DeployedUnmapped(c Cluster) []*VM {
	return idx.deployed[c.ID]
}

func sameOwner(c Cluster, vm *VM) bool {
	if c.ProjectID != "" || vm.ProjectID != "" {
		return c.ProjectID == vm.ProjectID
	}
	return vm.Account == c.Account && vm.DomainID == c.DomainID
}

// owner is who a cluster or VM belongs to, as sameOwner compares them: the project, else the
// account and domain.
type owner struct{ project, account, domain string }

func ownerOf(project, account, domain string) owner {
	if project != "" {
		return owner{project: project}
	}
	return owner{account: account, domain: domain}
}

// attributeDeployed files each VM CKS deployed that is in no map under one cluster of its owner,
// unless its name is a node name of one of the owner's clusters (NamedAsNodes reports it there).
// A name a tenant chooses is never needed: CloudStack's own record says CKS deployed the VM, and
// only clusters of the VM's own owner are candidates, so a tenant's VM never lands in another
// tenant's cluster. Of the owner's clusters, the VM goes to the one created last before it (CKS
// deploys a cluster's VMs after the cluster), else to the owner's first in inventory order: one
// finding per VM, however many clusters the owner has.
func (idx *Index) attributeDeployed(inv Inventory) {
	byOwner := make(map[owner][]*Cluster)
	for i := range inv.Clusters {
		c := &inv.Clusters[i]
		o := ownerOf(c.ProjectID, c.Account, c.DomainID)
		byOwner[o] = append(byOwner[o], c)
	}
	for i := range inv.VMs {
		vm := &inv.VMs[i]
		if !vm.CKSNode || idx.mapped[vm.ID] {
			continue
		}
		clusters := byOwner[ownerOf(vm.ProjectID, vm.Account, vm.DomainID)]
		if len(clusters) == 0 || namedAsNodeOfAny(vm.Name, clusters) {
			continue
		}
		pick := clusters[0]
		for _, c := range clusters {
			if !c.Created.IsZero() && !c.Created.After(vm.Created) && (pick.Created.After(vm.Created) || c.Created.After(pick.Created)) {
				pick = c
			}
		}
		idx.deployed[pick.ID] = append(idx.deployed[pick.ID], vm)
	}
}

// namedAsNodeOfAny reports whether name carries the node or etcd naming of one of the clusters.
func namedAsNodeOfAny(name string, clusters []*Cluster) bool {
	lower := strings.ToLower(name)
	candidates := nodeNamePrefixes(lower)
	etcd, isEtcd := etcdNamePrefix(lower)
	for _, c := range clusters {
		for _, p := range nodePrefixes(*c) {
			for _, q := range candidates {
				if p == q {
					return true
				}
			}
		}
		if isEtcd && etcd == etcdPrefix(*c) {
			return true
		}
	}
	return false
}
