package cloudstack

import (
	"context"
	"encoding/json"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Inventory reads every cluster, every VM and the port-forwarding rules the key can see. Each
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
	clusters, err := listScopes(scopes, "kubernetes clusters", s.opts.PageSize, listUntilShort[clusterRow],
		func(r clusterRow) string { return r.cluster.ID },
		func(project string, page, size int) (int, []clusterRow, error) {
			count, items, err := listPage[wireCluster](c, "listKubernetesClusters", "kubernetescluster", project, page, size, nil)
			return count, shrink(items, toClusterRow), err
		})
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes(scopes, "virtual machines", s.opts.PageSize, cloudstackapi.ListAll[vmRow],
		func(v vmRow) string { return v.vm.ID },
		func(project string, page, size int) (int, []vmRow, error) {
			count, items, err := listPage[wireVM](c, "listVirtualMachines", "virtualmachine", project, page, size,
				map[string]string{"details": "min"})
			return count, shrink(items, toVMRow), err
		})
	if err != nil {
		return collector.Inventory{}, err
	}
	inv, byID := joinVMs(vms)
	joinLegacy(clusters, byID)
	var rules []pfRule
	if ruleScopes := s.scopesOf(clusters, func(r clusterRow) bool { return s.opts.SSHPort == 0 && r.controlID != "" }); len(ruleScopes) > 0 {
		rules, err = listScopes(ruleScopes, "port forwarding rules", s.opts.PageSize, cloudstackapi.ListAll[pfRule],
			func(r pfRule) string { return r.id },
			func(project string, page, size int) (int, []pfRule, error) {
				count, items, err := listPage[wireRule](c, "listPortForwardingRules", "portforwardingrule", project, page, size, nil)
				return count, shrink(items, toRule), err
			})
		if err != nil {
			return collector.Inventory{}, err
		}
	}
	ssh := indexRules(rules)
	var nat map[string]string
	if natScopes := s.scopesOf(clusters, func(r clusterRow) bool { return needsSourceNAT(r, ssh) }); len(natScopes) > 0 {
		ips, err := listScopes(natScopes, "source NAT addresses", s.opts.PageSize, cloudstackapi.ListAll[wireIP],
			func(ip wireIP) string { return string(ip.ID) },
			func(project string, page, size int) (int, []wireIP, error) {
				return listPage[wireIP](c, "listPublicIpAddresses", "publicipaddress", project, page, size,
					map[string]string{"issourcenat": "true"})
			})
		if err != nil {
			return collector.Inventory{}, err
		}
		nat = sourceNATByNetwork(ips)
	}
	s.addClusters(&inv, clusters, ssh, nat)
	return inv, nil
}

// listPage asks for one page of a list command in one scope and decodes it leniently.
func listPage[T any](c *cs.CloudStackClient, command, key, project string, page, size int, extra map[string]string) (int, []T, error) {
	p := &cs.CustomServiceParams{}
	p.SetParam("listall", true)
	p.SetParam("page", page)
	p.SetParam("pagesize", size)
	if project != "" {
		p.SetParam("projectid", project)
	}
	for k, v := range extra {
		p.SetParam(k, v)
	}
	var body json.RawMessage
	custom, _ := cs.NewCustomService(c).(*cs.CustomService)
	if err := custom.CustomRequest(command, p, &body); err != nil {
		return 0, nil, err
	}
	return decodeList[T](body, key)
}

// shrink converts a page of decoded items.
func shrink[T any, U any](items []T, to func(*T) U) []U {
	out := make([]U, len(items))
	for i := range items {
		out[i] = to(&items[i])
	}
	return out
}

// vmRow is a listed VM with the login user CKS recorded for it.
type vmRow struct {
	vm        collector.VM
	loginUser string
}

func toVMRow(v *wireVM) vmRow {
	return vmRow{vm: collector.VM{ID: string(v.ID), Name: string(v.Name), State: string(v.State), Account: string(v.Account),
		DomainID: string(v.DomainID), ProjectID: string(v.ProjectID), Created: cloudstackapi.ParseDate(string(v.Created))},
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
