package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

var rulesBuilt = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// networkFindings reads the inventory and compares each cluster's rules, by cluster name: the
// findings' vm_id ("" for the cluster's own) and messages.
func networkFindings(t *testing.T, s *cloudstacktest.Server) map[string][]collector.Finding {
	t.Helper()
	inv := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: true}))
	out := make(map[string][]collector.Finding)
	for _, c := range inv.Clusters {
		if !c.Rules.Read() {
			t.Fatalf("cluster %s: rules not read: %+v", c.Name, c.Rules)
		}
		if fs := collector.CompareRules(c, rulesBuilt.Add(24*time.Hour), time.Minute); len(fs) > 0 {
			out[c.Name] = fs
		}
	}
	return out
}

// TestInventoryNetworkRules: the rules the fake creates as CKS does, by release line and network
// type, are read through listNetworks, listFirewallRules, listLoadBalancerRules, listNetworkACLs
// and listPortForwardingRules, each once per scope whatever the clusters, and match; each rule a
// tenant deletes is found in its own cluster only.
func TestInventoryNetworkRules(t *testing.T) {
	t.Parallel()
	for _, release := range []string{cloudstacktest.Release418, cloudstacktest.Release420, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			t.Parallel()
			var sets = map[string]*cloudstacktest.ClusterSet{}
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				spec := func(name string) cloudstacktest.ClusterSpec {
					return cloudstacktest.ClusterSpec{Name: name, Account: "acme", Control: 1, Workers: 2, Created: rulesBuilt}
				}
				sets["isolated"] = w.BuildCluster(spec("isolated"))
				tier := spec("tier")
				tier.VPC = true
				sets["tier"] = w.BuildCluster(tier)
				conserve := spec("conserve")
				conserve.VPC, conserve.Conserve = true, true
				sets["conserve"] = w.BuildCluster(conserve)
				allow := spec("allow")
				allow.VPC, allow.ACLID = true, cloudstacktest.DefaultAllowACL
				sets["allow"] = w.BuildCluster(allow)
				shared := spec("shared")
				shared.Shared = true
				sets["shared"] = w.BuildCluster(shared)
				project := spec("project")
				project.Account, project.ProjectID, project.Project = "", projectID, "team"
				sets["project"] = w.BuildCluster(project)
			})
			if got := networkFindings(t, s); len(got) != 0 {
				t.Fatalf("rules as CKS made them: findings %+v", got)
			}
			if n := s.CallCount("listNetworkACLs"); n != 1 {
				t.Errorf("%d listNetworkACLs calls, want 1", n)
			}

			// A tenant deletes a node's SSH rule, the SSH firewall range, a tier's ACL item and the
			// API's rule of a project's cluster.
			var ssh *cloudstacktest.PortForwardingRule
			s.Update(func(w *cloudstacktest.World) {
				ssh = sets["isolated"].Rules[2]
				for _, id := range []string{ssh.ID, sets["isolated"].Firewall[0].ID, sets["tier"].ACL[1].ID, sets["project"].Balancing.ID} {
					if _, err := w.RemoveRule(id); err != nil {
						t.Fatal(err)
					}
				}
			})
			got := networkFindings(t, s)
			want := map[string][]string{
				"isolated": {"", ssh.VirtualMachineID},
				"tier":     {""},
				"project":  {""},
			}
			if len(got) != len(want) {
				t.Fatalf("findings in %d clusters, want %d: %+v", len(got), len(want), got)
			}
			for name, ids := range want {
				if len(got[name]) != len(ids) {
					t.Fatalf("%s: findings %+v, want %d", name, got[name], len(ids))
				}
				for i, id := range ids {
					if f := got[name][i]; f.VMID != id || !strings.Contains(f.Message, "cluster "+name) {
						t.Errorf("%s: finding %+v, want vm_id %q", name, f, id)
					}
				}
			}
			if !strings.Contains(got["isolated"][0].Message, "Firewall rule for node SSH access can't be provisioned") ||
				!strings.Contains(got["tier"][0].Message, "allowing port 22") || !strings.Contains(got["project"][0].Message, "api-lb") {
				t.Errorf("messages %q, %q, %q", got["isolated"][0].Message, got["tier"][0].Message, got["project"][0].Message)
			}
		})
	}
}

// TestNetworkRulesOfAHostileTenant: mallory's rules on its own address, forwarding to the
// victim's VM and opening the victim's ports, never stand in for the victim's rules, and
// mallory deleting its own rules makes a finding of mallory's cluster only.
func TestNetworkRulesOfAHostileTenant(t *testing.T) {
	t.Parallel()
	var victim, mallory *cloudstacktest.ClusterSet
	s := startFake(t, func(w *cloudstacktest.World) {
		victim = w.BuildCluster(cloudstacktest.ClusterSpec{Name: "prod", Account: "acme", Control: 1, Workers: 2, Created: rulesBuilt})
		mallory = w.BuildCluster(cloudstacktest.ClusterSpec{Name: "prod", Account: "mallory", Control: 1, Workers: 1, Created: rulesBuilt})
		ip := mallory.IP
		for i, vm := range victim.VMs() {
			w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: ip.ID, IPAddress: ip.Address, PublicPort: 3000 + i,
				PrivatePort: 22, VirtualMachineID: vm.ID, NetworkID: mallory.Network.ID, Account: "mallory", DomainID: cloudstacktest.RootDomainID})
		}
		w.FirewallRules = append(w.FirewallRules, &cloudstacktest.FirewallRule{ID: "f1e1ffff-0000-4000-8000-000000000001", IPAddressID: ip.ID,
			IPAddress: ip.Address, NetworkID: mallory.Network.ID, Protocol: "all", Account: "mallory", DomainID: cloudstacktest.RootDomainID})
		w.LoadBalancerRules = append(w.LoadBalancerRules, &cloudstacktest.LoadBalancerRule{ID: "f1e1ffff-0000-4000-8000-000000000002",
			Name: "api-lb", PublicIPID: ip.ID, NetworkID: mallory.Network.ID, PublicPort: 6443, PrivatePort: 6443,
			VMIDs: []string{victim.Control[0].ID}, Account: "mallory", DomainID: cloudstacktest.RootDomainID})
	})
	if got := networkFindings(t, s); len(got) != 0 {
		t.Fatalf("findings %+v, want none", got)
	}
	s.Update(func(w *cloudstacktest.World) {
		for _, id := range []string{victim.Rules[1].ID, victim.Balancing.ID, mallory.Rules[0].ID} {
			if _, err := w.RemoveRule(id); err != nil {
				t.Fatal(err)
			}
		}
	})
	inv := mustInventory(t, newSource(t, s, api.Options{}))
	for _, c := range inv.Clusters {
		got := collector.CompareRules(c, rulesBuilt.Add(24*time.Hour), time.Minute)
		var ids []string
		for _, f := range got {
			ids = append(ids, f.VMID)
		}
		want := []string{"", victim.Rules[1].VirtualMachineID} // the API's rule and the worker's SSH rule
		if c.Account == "mallory" {
			want = []string{mallory.Rules[0].VirtualMachineID}
		}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("%s's cluster: findings %+v, want vm_ids %q", c.Account, got, want)
		}
	}
}

// TestNetworkRulesUnreadable: a rule list that fails leaves every cluster's rules unread (the
// network side not compared), and the rest of the inventory as it was.
func TestNetworkRulesUnreadable(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"listNetworks", "listFirewallRules", "listLoadBalancerRules", "listNetworkACLLists", "listNetworkACLs"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			s := startFake(t, func(w *cloudstacktest.World) {
				w.BuildCluster(cloudstacktest.ClusterSpec{Name: "prod", Account: "acme", Control: 1, Workers: 1, Created: rulesBuilt})
				w.BuildCluster(cloudstacktest.ClusterSpec{Name: "tier", Account: "acme", Control: 1, Workers: 1, Created: rulesBuilt, VPC: true})
			})
			s.SetFault(command, cloudstacktest.Fault{Status: 530})
			inv := mustInventory(t, newSource(t, s, api.Options{}))
			if len(inv.Clusters) != 2 || inv.Clusters[0].SSH.Host == "" {
				t.Fatalf("inventory %+v", inv.Clusters)
			}
			for _, c := range inv.Clusters {
				if c.Rules.Read() || !strings.Contains(c.Rules.Err, "530") {
					t.Errorf("%s: rules %+v, want unread with the error", c.Name, c.Rules)
				}
			}
		})
	}
}

// TestDefaultAllowByIdentity: a tier's ACL list is CloudStack's default_allow by its uuid, never
// by its name. Mallory names the list of its own VPC "default_allow" (createNetworkACLList
// allows it) and deletes the ACL item CKS created there for 6443: the finding is mallory's, as
// CKS will need the item. A root admin's global list also named default_allow, created after
// CloudStack's, does not stand for it either; the tier on the real default_allow has no ACL
// items and no finding; so in a sweep, asking for the list once, and in each cluster's re-check,
// however many lists mallory names default_allow.
func TestDefaultAllowByIdentity(t *testing.T) {
	t.Parallel()
	var allow, mallory *cloudstacktest.ClusterSet
	s := startFake(t, func(w *cloudstacktest.World) {
		allow = w.BuildCluster(cloudstacktest.ClusterSpec{Name: "allow", Account: "acme", Control: 1, Workers: 1, Created: rulesBuilt,
			VPC: true, ACLID: cloudstacktest.DefaultAllowACL})
		mallory = w.BuildCluster(cloudstacktest.ClusterSpec{Name: "prod", Account: "mallory", Control: 1, Workers: 1, Created: rulesBuilt,
			VPC: true, ACLName: "default_allow"})
		w.NetworkACLLists = append(w.NetworkACLLists, &cloudstacktest.NetworkACLList{ID: "acl0ffff-0000-4000-8000-000000000001",
			Name: "Default_Allow", Description: "a root admin's"})
		for i := range cloudstacktest.DefaultPageSize + 1 { // more of mallory's lists so named than a page holds
			w.NetworkACLLists = append(w.NetworkACLLists, &cloudstacktest.NetworkACLList{ID: fmt.Sprintf("acl1ffff-0000-4000-8000-%012d", i),
				Name: "default_allow", VPCID: mallory.Network.VPCID, Account: "mallory"})
		}
	})
	if len(allow.ACL) != 0 || len(mallory.ACL) != 2 {
		t.Fatalf("CKS's ACL items: %d on default_allow, %d on mallory's own list; want 0, 2", len(allow.ACL), len(mallory.ACL))
	}
	if got := networkFindings(t, s); len(got) != 0 {
		t.Fatalf("rules as CKS made them: findings %+v", got)
	}
	s.Update(func(w *cloudstacktest.World) {
		if _, err := w.RemoveRule(mallory.ACL[0].ID); err != nil { // 6443
			t.Fatal(err)
		}
	})
	src := newSource(t, s, api.Options{})
	inv := mustInventory(t, src)
	clusters := inv.Clusters
	for _, c := range inv.Clusters { // and each again as a re-check reads it, by its network
		one, err := src.ClusterInventory(t.Context(), c)
		if err != nil || len(one.Clusters) != 1 {
			t.Fatalf("re-check of %s's cluster: %d clusters, %v", c.Account, len(one.Clusters), err)
		}
		clusters = append(clusters, one.Clusters[0])
	}
	for _, c := range clusters {
		if !c.Rules.Read() {
			t.Fatalf("%s's cluster: rules unread: %s", c.Account, c.Rules.Err)
		}
		if got := c.Rules.ACLDefaultAllow; got != (c.Account == "acme") {
			t.Errorf("%s's cluster: ACLDefaultAllow %v", c.Account, got)
		}
		fs := collector.CompareRules(c, rulesBuilt.Add(24*time.Hour), time.Minute)
		switch {
		case c.Account == "acme" && len(fs) != 0:
			t.Errorf("the tier on default_allow: findings %+v, want none", fs)
		case c.Account == "mallory" && (len(fs) != 1 || fs[0].VMID != "" || !strings.Contains(fs[0].Message, "allowing port 6443")):
			t.Errorf("mallory's tier without its 6443 item: findings %+v, want the cluster's one naming port 6443", fs)
		}
	}
	// One request each time, without listall: mallory's lists, more than a page, are not listed.
	if n := s.CallCount("listNetworkACLLists"); n != 4 {
		t.Errorf("%d listNetworkACLLists calls in two cycles and two re-checks, want 4", n)
	}
	for _, p := range listCalls(s, "listNetworkACLLists") {
		if p.Get("listall") != "false" || p.Get("name") != "default_allow" {
			t.Errorf("listNetworkACLLists %v, want name=default_allow without listall", p)
		}
	}
}

// TestDefaultAllowNotListed: when no global list is named default_allow (a root admin renamed
// it), the tiers' rules are left unread with the reason, never compared as if no tier were on
// default_allow; the rules of an isolated network are read as before.
func TestDefaultAllowNotListed(t *testing.T) {
	t.Parallel()
	s := startFake(t, func(w *cloudstacktest.World) {
		w.DefaultAllowName = "allow_all"
		w.BuildCluster(cloudstacktest.ClusterSpec{Name: "allow", Account: "acme", Control: 1, Workers: 1, Created: rulesBuilt,
			VPC: true, ACLID: cloudstacktest.DefaultAllowACL})
		w.BuildCluster(cloudstacktest.ClusterSpec{Name: "isolated", Account: "acme", Control: 1, Workers: 1, Created: rulesBuilt})
	})
	inv := mustInventory(t, newSource(t, s, api.Options{}))
	for _, c := range inv.Clusters {
		switch {
		case c.Name == "allow" && (c.Rules.Read() || !strings.Contains(c.Rules.Err, "default_allow is not listed")):
			t.Errorf("the tier: rules %+v, want unread, default_allow not listed", c.Rules)
		case c.Name == "isolated" && !c.Rules.Read():
			t.Errorf("the isolated network: rules unread: %s", c.Rules.Err)
		}
	}
}
