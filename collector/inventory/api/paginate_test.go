package api_test

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestInventoryPaginates lists more VMs than fit a page and checks that every VM is read exactly
// once, with one call per page and scope and the page numbers and sizes CloudStack expects.
func TestInventoryPaginates(t *testing.T) {
	tests := []struct {
		name            string
		accountVMs      int
		projectVMs      int
		pageSize        int
		includeProjects bool
		wantPageSize    int
		wantCalls       int
		wantVMs         int
	}{
		{name: "1234 VMs, pages of 500", accountVMs: 1234, pageSize: 500, wantPageSize: 500, wantCalls: 3, wantVMs: 1234},
		{name: "default page size is 500", accountVMs: 1234, wantPageSize: 500, wantCalls: 3, wantVMs: 1234},
		{name: "1234 VMs, pages of 100", accountVMs: 1234, pageSize: 100, wantPageSize: 100, wantCalls: 13, wantVMs: 1234},
		{name: "projects listed in a second pass", accountVMs: 1234, projectVMs: 1234, pageSize: 500,
			includeProjects: true, wantPageSize: 500, wantCalls: 6, wantVMs: 2468},
		{name: "projects left out", accountVMs: 1234, projectVMs: 1234, pageSize: 500,
			wantPageSize: 500, wantCalls: 3, wantVMs: 1234},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := make(map[string]int)
			s := startFake(t, func(w *cloudstacktest.World) {
				for i := range tt.accountVMs + tt.projectVMs {
					vm := cloudstacktest.VM{Name: fmt.Sprintf("vm-%d", i), State: "Running", Account: "acme"}
					if i >= tt.accountVMs {
						vm.Account, vm.ProjectID = "PrjAcct-team-1", projectID
					}
					stored := w.AddVM(vm)
					if vm.ProjectID == "" || tt.includeProjects {
						want[stored.ID] = 1
					}
				}
			})

			inv := mustInventory(t, newSource(t, s, api.Options{PageSize: tt.pageSize, IncludeProjects: tt.includeProjects}))

			got := make(map[string]int)
			for _, v := range inv.VMs {
				got[v.ID]++
			}
			if len(got) != tt.wantVMs {
				t.Errorf("got %d distinct VMs, want %d", len(got), tt.wantVMs)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("times each VM was read (-want +got):\n%s", diff)
			}
			calls := listCalls(s, "listVirtualMachines")
			if len(calls) != tt.wantCalls {
				t.Errorf("got %d listVirtualMachines calls, want %d", len(calls), tt.wantCalls)
			}
			page, scope := 0, ""
			for i, p := range calls {
				if p.Get("projectid") != scope { // a new pass starts at page 1
					page, scope = 0, p.Get("projectid")
				}
				page++
				if p.Get("page") != strconv.Itoa(page) || p.Get("pagesize") != strconv.Itoa(tt.wantPageSize) {
					t.Errorf("call %d: page=%q pagesize=%q, want page=%d pagesize=%d",
						i, p.Get("page"), p.Get("pagesize"), page, tt.wantPageSize)
				}
			}
		})
	}
}

// TestInventoryCallsGrowWithPages checks that the number of API calls of one Inventory depends on
// the number of pages, not on the number of clusters.
func TestInventoryCallsGrowWithPages(t *testing.T) {
	tests := []struct {
		name            string
		clusters        int
		pageSize        int
		includeProjects bool
		want            map[string]int // calls by command
	}{
		{name: "1 cluster", clusters: 1, pageSize: 500,
			want: map[string]int{"listKubernetesClusters": 1, "listVirtualMachines": 1, "listPortForwardingRules": 1,
				"listNetworks": 1, "listFirewallRules": 1, "listLoadBalancerRules": 1}},
		{name: "50 clusters", clusters: 50, pageSize: 500,
			want: map[string]int{"listKubernetesClusters": 1, "listVirtualMachines": 1, "listPortForwardingRules": 1,
				"listNetworks": 1, "listFirewallRules": 1, "listLoadBalancerRules": 1}},
		{name: "50 clusters with projects", clusters: 50, pageSize: 500, includeProjects: true,
			// No cluster belongs to a project: the projects' rules are not needed.
			want: map[string]int{"listKubernetesClusters": 2, "listVirtualMachines": 2, "listPortForwardingRules": 1,
				"listNetworks": 1, "listFirewallRules": 1, "listLoadBalancerRules": 1}},
		{name: "50 clusters, pages of 20", clusters: 50, pageSize: 20,
			// 50 clusters, 150 VMs, 50 rules; the networks are not described, so none is listed
			want: map[string]int{"listKubernetesClusters": 3, "listVirtualMachines": 8, "listPortForwardingRules": 3,
				"listNetworks": 1, "listFirewallRules": 1, "listLoadBalancerRules": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, func(w *cloudstacktest.World) {
				for i := range tt.clusters {
					c := accountCluster(fmt.Sprintf("c%d", i))
					c.IPAddress, c.IPAddressID = fmt.Sprintf("203.0.113.%d", i+1), fmt.Sprintf("ip-%d", i)
					k := addCKS(w, c, 1, 2, 0)
					w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: c.IPAddressID,
						PublicPort: 2222, PrivatePort: 22, VirtualMachineID: k.vms[0].ID, Account: c.Account})
				}
			})

			inv := mustInventory(t, newSource(t, s, api.Options{PageSize: tt.pageSize, IncludeProjects: tt.includeProjects}))

			if len(inv.Clusters) != tt.clusters {
				t.Fatalf("got %d clusters, want %d", len(inv.Clusters), tt.clusters)
			}
			got := make(map[string]int)
			for _, c := range s.Calls() {
				got[c.Command]++
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls by command (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInventoryListScopes checks the parameters of every list call: listall=true always,
// projectid=-1 only on the second pass and only when projects are included, and that clusters of
// projects are dropped when they are not.
func TestInventoryListScopes(t *testing.T) {
	tests := []struct {
		includeProjects bool
		wantScopes      []string
		wantClusters    []string
	}{
		{includeProjects: true, wantScopes: []string{"", "-1"}, wantClusters: []string{"prod", "team"}},
		{includeProjects: false, wantScopes: []string{""}, wantClusters: []string{"prod"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("IncludeProjects=%v", tt.includeProjects), func(t *testing.T) {
			s := startFake(t, func(w *cloudstacktest.World) {
				c := accountCluster("prod")
				c.IPAddress, c.IPAddressID = "203.0.113.1", "ip-prod"
				addCKS(w, c, 1, 1, 0)
				p := accountCluster("team")
				p.IPAddress, p.IPAddressID = "203.0.113.2", "ip-team"
				p.Account, p.ProjectID, p.Project = "PrjAcct-team-1", projectID, "team"
				addCKS(w, p, 1, 1, 0)
			})

			inv := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: tt.includeProjects}))

			var names []string
			for _, c := range inv.Clusters {
				names = append(names, c.Name)
			}
			sort.Strings(names)
			if diff := cmp.Diff(tt.wantClusters, names); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
			for _, cmd := range []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"} {
				var scopes []string
				for i, p := range listCalls(s, cmd) {
					if p.Get("listall") != "true" {
						t.Errorf("%s call %d: listall=%q, want true", cmd, i, p.Get("listall"))
					}
					scopes = append(scopes, p.Get("projectid"))
				}
				if diff := cmp.Diff(tt.wantScopes, scopes); diff != "" {
					t.Errorf("%s projectid per call (-want +got):\n%s", cmd, diff)
				}
			}
		})
	}
}
