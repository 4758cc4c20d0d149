package api

import (
	"context"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// ClusterInventory reads one cluster again, for a re-check that an event asked for: the cluster
// by id (listKubernetesClusters id=), the VMs of its owner (its map's VMs and every VM that may be
// named as one of its nodes), the owner's port-forwarding rules, the source NAT address where
// its SSH target needs it, and the other rules of its network (readRules, narrowed to the
// network). Every list is scoped to the owner or the network, so the requests do not grow with
// the cloud. A cluster that no longer exists gives an inventory without it.
func (s *Source) ClusterInventory(ctx context.Context, of collector.Cluster) (collector.Inventory, error) {
	c := s.api.SDK(ctx)
	size := s.opts.PageSize
	in := strs{}
	scope, owner := "", map[string]string{"account": of.Account, "domainid": of.DomainID}
	if of.ProjectID != "" {
		scope, owner = of.ProjectID, nil
	}
	clusters, err := listScopes([]string{scope}, "kubernetes clusters", func(r clusterRow) string { return r.cluster.ID },
		listPages(c, "listKubernetesClusters", "kubernetescluster", cloudstackapi.PageOrTotal, size, map[string]string{"id": of.ID}, in.clusterRow))
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes([]string{scope}, "virtual machines", func(v vmRow) string { return v.vm.ID },
		listPages(c, "listVirtualMachines", "virtualmachine", cloudstackapi.Total, size, withOwner(map[string]string{"details": "min"}, owner), in.vmRow))
	if err != nil {
		return collector.Inventory{}, err
	}
	inv, byID := joinVMs(vms)
	joinLegacy(clusters, byID)
	var rules []pfRule
	var rulesErr error
	if len(clusters) > 0 {
		rules, rulesErr = portForwardingRules(c, []string{scope}, size, owner, in)
		if rulesErr != nil && s.opts.SSHPort == 0 && clusters[0].controlID != "" {
			return collector.Inventory{}, rulesErr
		}
	}
	var ssh map[string][]collector.SSHRule
	if s.opts.SSHPort == 0 { // with ssh.port the rules give no SSH address
		ssh = indexRules(rules)
	}
	var nat map[string]string
	if len(clusters) > 0 && needsSourceNAT(clusters[0], ssh) {
		if nat, err = sourceNAT(c, []string{scope}, size, owner); err != nil {
			return collector.Inventory{}, err
		}
	}
	s.addVersions(c, clusters)
	s.addClusters(&inv, clusters, ssh, nat)
	s.unmanaged.mark(c, &inv, of.ID, s.opts.Now())
	if len(inv.Clusters) == 1 && inv.Clusters[0].NetworkID != "" {
		readRules(c, []string{scope}, size, inv.Clusters, rules, rulesErr, inv.Clusters[0].NetworkID, in)
	}
	inv.Offerings = s.offers.lastRead() // the last sweep's: offerings are cloud-wide, not the cluster's
	s.ops.operationStartsOf(c, inv.Clusters)
	return inv, nil
}

// withOwner returns extra narrowed to owner.
func withOwner(extra, owner map[string]string) map[string]string {
	out := make(map[string]string, len(extra)+len(owner))
	for k, v := range owner {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}
