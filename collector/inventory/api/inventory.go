package api

import (
	"context"
	"strings"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Inventory reads every cluster, every VM, the port-forwarding rules and the service offerings
// the key can see. Each
// list is paged, and listed twice when projects are included (project resources only appear with
// projectid=-1), so the number of calls grows with pages, not with clusters.
func (s *Source) Inventory(ctx context.Context) (collector.Inventory, error) {
	c := s.api.SDK(ctx)
	scopes := []string{""}
	if s.opts.IncludeProjects {
		scopes = append(scopes, "-1")
	}
	// Each page is shrunk to what the check needs as soon as it is decoded: the answers of a
	// whole large cloud would take several times the memory of the inventory itself.
	size := s.opts.PageSize
	in := strs{}
	// listKubernetesClusters answers count = the items on this page up to 4.19.0.0
	// (KubernetesClusterManagerImpl.listKubernetesClusters calls setResponses(list) without a
	// total, e.g. at 4.14.0.0, 4.17.0.0 and 4.19.0.0) and the total from 4.19.1.0 (searchAndCount,
	// apache/cloudstack#8701); the other lists answer the total.
	clusters, err := listScopes(scopes, "kubernetes clusters", func(r clusterRow) string { return r.cluster.ID },
		listPages(c, "listKubernetesClusters", "kubernetescluster", cloudstackapi.PageOrTotal, size, nil, in.clusterRow))
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes(scopes, "virtual machines", func(v vmRow) string { return v.vm.ID },
		listPages(c, "listVirtualMachines", "virtualmachine", cloudstackapi.Total, size, map[string]string{"details": "min"}, in.vmRow))
	if err != nil {
		return collector.Inventory{}, err
	}
	inv, byID := joinVMs(vms)
	joinLegacy(clusters, byID)
	// The port-forwarding rules give the SSH address and are rules of the network side: listed
	// in every scope that has clusters. Without them no SSH address is known, unless ssh.port
	// names the port; then only the network side goes unread.
	var rules []pfRule
	var rulesErr error
	ruleScopes := s.scopesOf(clusters, func(clusterRow) bool { return true })
	if len(ruleScopes) > 0 {
		rules, rulesErr = portForwardingRules(c, ruleScopes, size, nil, in)
		if rulesErr != nil && s.opts.SSHPort == 0 {
			return collector.Inventory{}, rulesErr
		}
	}
	var ssh map[string][]collector.SSHRule
	if s.opts.SSHPort == 0 { // with ssh.port the rules give no SSH address
		ssh = indexRules(rules)
	}
	var nat map[string]string
	if natScopes := s.scopesOf(clusters, func(r clusterRow) bool { return needsSourceNAT(r, ssh) }); len(natScopes) > 0 {
		if nat, err = sourceNAT(c, natScopes, size, nil); err != nil {
			return collector.Inventory{}, err
		}
	}
	s.addVersions(c, clusters)
	s.addClusters(&inv, clusters, ssh, nat)
	s.unmanaged.mark(c, &inv, "", s.opts.Now())
	inv.Offerings = namedRemoved(s.offers.read(c, size, inv.Clusters, s.opts.Logger), clusters)
	networkRules(c, ruleScopes, size, inv.Clusters, rules, rulesErr, in)
	s.ops.operationStarts(c, inv.Clusters)
	return inv, nil
}

// vmRow is a listed VM with the login user CKS recorded for it.
type vmRow struct {
	vm        collector.VM
	loginUser string
}

// vmRow shrinks a listed VM to its row.
func (in strs) vmRow(v *wireVM) vmRow {
	return vmRow{vm: collector.VM{ID: in.of(v.ID), Name: in.of(v.Name), State: in.of(v.State), Account: in.of(v.Account),
		DomainID: in.of(v.DomainID), ProjectID: in.of(v.ProjectID), Created: cloudstackapi.ParseDate(string(v.Created)),
		CKSNode: strings.EqualFold(string(v.VMType), "cksnode")},
		loginUser: loginUser(v)}
}

// joinVMs keeps each VM once (the scopes may overlap) and indexes the rows by uuid.
func joinVMs(vms []vmRow) (collector.Inventory, map[string]*vmRow) {
	inv := collector.Inventory{VMs: make([]collector.VM, 0, len(vms))}
	byID := make(map[string]*vmRow, len(vms))
	for i := range vms {
		if byID[vms[i].vm.ID] == nil {
			byID[vms[i].vm.ID] = &vms[i]
			inv.VMs = append(inv.VMs, vms[i].vm)
		}
	}
	return inv, byID
}

// portForwardingRules lists the port-forwarding rules in scopes, narrowed by extra (an owner).
func portForwardingRules(c *cs.CloudStackClient, scopes []string, size int, extra map[string]string, in strs) ([]pfRule, error) {
	return listScopes(scopes, "port forwarding rules", func(r pfRule) string { return r.id },
		listPages(c, "listPortForwardingRules", "portforwardingrule", cloudstackapi.Total, size, extra, in.rule))
}

// sourceNAT lists the source NAT addresses in scopes, narrowed by extra (an owner), by network.
func sourceNAT(c *cs.CloudStackClient, scopes []string, size int, extra map[string]string) (map[string]string, error) {
	with := withOwner(map[string]string{"issourcenat": "true"}, extra)
	ips, err := listScopes(scopes, "source NAT addresses", func(ip wireIP) string { return string(ip.ID) },
		listPages(c, "listPublicIpAddresses", "publicipaddress", cloudstackapi.Total, size, with, func(ip *wireIP) wireIP { return *ip }))
	if err != nil {
		return nil, err
	}
	return sourceNATByNetwork(ips), nil
}
