package api

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
	size := s.opts.PageSize
	clusters, err := listScopes(scopes, "kubernetes clusters", func(r clusterRow) string { return r.cluster.ID },
		func(name, project string) ([]clusterRow, error) {
			return listUntilShort(name, size, func(page, size int) (int, []clusterRow, error) {
				body, err := requestPage(c, "listKubernetesClusters", project, page, size, nil)
				if err != nil {
					return 0, nil, err
				}
				return decodePage(body, "kubernetescluster", toClusterRow)
			})
		})
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes(scopes, "virtual machines", func(v vmRow) string { return v.vm.ID },
		listAhead(c, "listVirtualMachines", "virtualmachine", size, map[string]string{"details": "min"}, toVMRow))
	if err != nil {
		return collector.Inventory{}, err
	}
	inv, byID := joinVMs(vms)
	joinLegacy(clusters, byID)
	var rules []pfRule
	if ruleScopes := s.scopesOf(clusters, func(r clusterRow) bool { return s.opts.SSHPort == 0 && r.controlID != "" }); len(ruleScopes) > 0 {
		rules, err = listScopes(ruleScopes, "port forwarding rules", func(r pfRule) string { return r.id },
			listAhead(c, "listPortForwardingRules", "portforwardingrule", size, nil, toRule))
		if err != nil {
			return collector.Inventory{}, err
		}
	}
	ssh := indexRules(rules)
	var nat map[string]string
	if natScopes := s.scopesOf(clusters, func(r clusterRow) bool { return needsSourceNAT(r, ssh) }); len(natScopes) > 0 {
		ips, err := listScopes(natScopes, "source NAT addresses", func(ip wireIP) string { return string(ip.ID) },
			listAhead(c, "listPublicIpAddresses", "publicipaddress", size, map[string]string{"issourcenat": "true"},
				func(ip *wireIP) wireIP { return *ip }))
		if err != nil {
			return collector.Inventory{}, err
		}
		nat = sourceNATByNetwork(ips)
	}
	s.addVersions(c, clusters)
	s.addClusters(&inv, clusters, ssh, nat)
	s.ops.operationStarts(c, inv.Clusters)
	return inv, nil
}

// listAhead lists a command whose count is the total, asking for the next page while the last
// one is decoded (cloudstackapi.ListAhead); each page is shrunk to what the check needs as it is
// decoded.
func listAhead[W, T any](c *cs.CloudStackClient, command, key string, size int, extra map[string]string, to func(*W) T) func(name, project string) ([]T, error) {
	return func(name, project string) ([]T, error) {
		return cloudstackapi.ListAhead(name, size,
			func(page, size int) (json.RawMessage, error) {
				return requestPage(c, command, project, page, size, extra)
			},
			func(body json.RawMessage) (int, []T, error) { return decodePage(body, key, to) })
	}
}

// requestPage asks for one page of a list command in one scope and returns the answer undecoded.
func requestPage(c *cs.CloudStackClient, command, project string, page, size int, extra map[string]string) (json.RawMessage, error) {
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
		return nil, err
	}
	return body, nil
}

// decodePage decodes a page leniently and shrinks its items.
func decodePage[W, T any](body json.RawMessage, key string, to func(*W) T) (int, []T, error) {
	count, items, err := decodeList[W](body, key)
	return count, shrink(items, to), err
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
