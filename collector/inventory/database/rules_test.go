package database_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// rulesWorld is one cluster per network shape CKS meets, each with the rules CKS creates on it
// (cloudstacktest.World.AddCKSRules), and a hostile tenant's cluster whose own rules, on its own
// address and network, forward to and balance the victim's VMs.
type rulesWorld struct {
	sets    map[string]*cloudstacktest.ClusterSet
	mallory *cloudstacktest.ClusterSet
}

func newRulesWorld(w *cloudstacktest.World, release string) *rulesWorld {
	w.Release = release
	x := &rulesWorld{sets: map[string]*cloudstacktest.ClusterSet{}}
	add := func(name string, edit func(*cloudstacktest.ClusterSpec)) *cloudstacktest.ClusterSet {
		spec := cloudstacktest.ClusterSpec{Name: name, Account: "acme", Control: 1, Workers: 2, Created: xCreated}
		if edit != nil {
			edit(&spec)
		}
		x.sets[name] = w.BuildCluster(spec)
		return x.sets[name]
	}
	add("isolated", nil)
	add("ha", func(s *cloudstacktest.ClusterSpec) { s.Control = 3 })
	add("tier", func(s *cloudstacktest.ClusterSpec) { s.VPC = true })
	add("conserve", func(s *cloudstacktest.ClusterSpec) { s.VPC, s.Conserve = true, true })
	add("allow", func(s *cloudstacktest.ClusterSpec) { s.VPC, s.ACLID = true, cloudstacktest.DefaultAllowACL })
	// A tenant's tier on a list of its own VPC that it named default_allow: CKS created the ACL
	// items there all the same (it compares the list's id with NetworkACL.DEFAULT_ALLOW).
	add("named", func(s *cloudstacktest.ClusterSpec) { s.Account, s.VPC, s.ACLName = "eve", true, "default_allow" })
	add("shared", func(s *cloudstacktest.ClusterSpec) { s.Shared = true })
	add("project", func(s *cloudstacktest.ClusterSpec) {
		s.Account, s.ProjectID, s.Project = "", "00000003-0000-4000-8000-000000000001", "team"
	})
	// A routed network (4.20 on; before, the same network is isolated): CKS creates no rules on it.
	add("routed", nil).Network.Routed = true
	if release >= "4.21" { // etcd nodes (4.21 on), with an SSH rule each
		add("etcd", func(s *cloudstacktest.ClusterSpec) { s.Etcd = 2 })
	}

	victim := x.sets["isolated"]
	x.mallory = add("mallory", func(s *cloudstacktest.ClusterSpec) { s.Account, s.Workers = "mallory", 1 })
	ip, net := x.mallory.IP, x.mallory.Network.ID
	for i, vm := range victim.VMs() {
		w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: ip.ID, IPAddress: ip.Address, PublicPort: 3000 + i,
			PrivatePort: 22, VirtualMachineID: vm.ID, NetworkID: net, Account: "mallory", DomainID: cloudstacktest.RootDomainID})
	}
	w.FirewallRules = append(w.FirewallRules, &cloudstacktest.FirewallRule{ID: "f1e1ffff-0000-4000-8000-000000000001", IPAddressID: ip.ID,
		IPAddress: ip.Address, NetworkID: net, Protocol: "all", Account: "mallory", DomainID: cloudstacktest.RootDomainID})
	w.LoadBalancerRules = append(w.LoadBalancerRules, &cloudstacktest.LoadBalancerRule{ID: "f1e1ffff-0000-4000-8000-000000000002",
		Name: "api-lb", PublicIPID: ip.ID, PublicIP: ip.Address, NetworkID: net, PublicPort: 6443, PrivatePort: 6443,
		VMIDs: []string{victim.Control[0].ID}, Account: "mallory", DomainID: cloudstacktest.RootDomainID})
	return x
}

// networkSide is the network side of each cluster of an inventory, by name: its rules and what
// CompareRules finds.
type networkSide struct {
	Rules    *collector.NetworkRules
	Findings []finding
}

func networkSides(inv collector.Inventory) map[string]networkSide {
	out := map[string]networkSide{}
	for _, c := range inv.Clusters {
		name := c.Name
		if c.Account == "mallory" {
			name = "mallory"
		}
		var fs []collector.Finding
		if c.Rules.Read() {
			fs = collector.CompareRules(c, xNow, xGrace)
		}
		out[name] = networkSide{Rules: c.Rules, Findings: findings(fs)}
	}
	return out
}

// onlyTheAPIShows leaves out what only the database reads: the VMs behind a load-balancer rule
// (load_balancer_vm_map; the API lists them one rule at a time only, which the API source does
// not do).
var onlyTheAPIShows = cmp.Options{cmpopts.IgnoreFields(collector.BalancingRule{}, "VMIDs", "VMsRead"), cmpopts.EquateEmpty()}

// TestRulesFromAPIAndDatabase reads the network side of one cloud through both sources on every
// release line's schema: the same rules for every cluster (isolated, HA, VPC tiers with their own
// ACL, conserve mode and default_allow, a tenant's own list it named default_allow, shared,
// routed from 4.20, a project's), none missing; then a tenant deletes rules (a node's SSH rule,
// the SSH firewall range, a tier's ACL item, the 6443 item of the list named default_allow, the
// API's load-balancer rule of a project's cluster, the API's port-forwarding rule of a tier) and
// both sources find the same, each in its own cluster. A hostile tenant's rules on its own address
// that forward to and balance the victim's VMs never stand in for the victim's, and their
// deletion is the hostile tenant's finding only. Only the database sees which VMs are behind
// api-lb: a control VM taken out of it is its finding.
func TestRulesFromAPIAndDatabase(t *testing.T) {
	db := mariadbtest.Start(t)
	for _, release := range []string{"4.14", "4.16", "4.17", "4.19", "4.20", "4.21", "4.22"} {
		t.Run(release, func(t *testing.T) {
			fake := cloudstacktest.NewServer()
			t.Cleanup(fake.Close)
			var x *rulesWorld
			fake.Update(func(w *cloudstacktest.World) { x = newRulesWorld(w, release) })
			dbSrc, d := databaseSource(t, db, fake)
			if want := mariadbtest.SchemaOf(release); d.Version != want {
				t.Fatalf("schema %s, want %s", d.Version, want)
			}
			def := config.Defaults().CloudStack
			apiSrc, err := api.New(api.Options{API: cloudstackapi.Options{Endpoint: fake.Endpoint(), APIKey: fake.APIKey(), SecretKey: fake.SecretKey(), Timeout: def.Timeout},
				PageSize: def.PageSize, IncludeProjects: true})
			if err != nil {
				t.Fatal(err)
			}
			// compare reads both sources; the findings of the cluster dbOnly, whose api-lb only the
			// database sees, are left out of the comparison.
			compare := func(when, dbOnly string) (fromAPI, fromDB map[string]networkSide) {
				t.Helper()
				fromAPI, fromDB = networkSides(readInventory(t, "API", apiSrc)), networkSides(readInventory(t, "database", dbSrc))
				ignore := cmpopts.IgnoreMapEntries(func(name string, _ networkSide) bool { return name == dbOnly })
				if diff := cmp.Diff(fromAPI, fromDB, onlyTheAPIShows, ignore); diff != "" {
					t.Errorf("%s: the network side differs (-API +database):\n%s", when, diff)
				}
				return fromAPI, fromDB
			}

			_, fromDB := compare("as CKS created them", "")
			for name, side := range fromDB {
				if !side.Rules.Read() || len(side.Findings) > 0 {
					t.Errorf("%s as CKS created it: rules %+v, findings %+v; want read, none", name, side.Rules, side.Findings)
				}
			}
			wantType := map[string]collector.NetworkType{"isolated": collector.NetworkIsolated, "tier": collector.NetworkVPCTier,
				"allow": collector.NetworkVPCTier, "shared": collector.NetworkDirect, "routed": collector.NetworkIsolated}
			if release >= "4.20" {
				wantType["routed"] = collector.NetworkDirect
			}
			for name, typ := range wantType {
				if got := fromDB[name].Rules.Type; got != typ {
					t.Errorf("%s: network type %q, want %q", name, got, typ)
				}
			}
			if r := fromDB["allow"].Rules; !r.ACLDefaultAllow || fromDB["tier"].Rules.ACLDefaultAllow || fromDB["named"].Rules.ACLDefaultAllow {
				t.Errorf("default_allow: allow's %v, tier's %v, named's %v; want true, false, false", r.ACLDefaultAllow,
					fromDB["tier"].Rules.ACLDefaultAllow, fromDB["named"].Rules.ACLDefaultAllow)
			}
			if lb := fromDB["ha"].Rules.Balancing; len(lb) != 1 || !lb[0].VMsRead || len(lb[0].VMIDs) != 3 {
				t.Errorf("ha's api-lb: %+v, want its 3 control VMs read", lb)
			}

			// The tenants delete rules; the victim's control VM leaves api-lb (the database's only).
			s := x.sets
			tierAPI := s["tier"].Rules[len(s["tier"].Rules)-1] // the API's 6443 -> 6443, last
			removed := []string{s["isolated"].Rules[2].ID, s["isolated"].Firewall[0].ID, s["tier"].ACL[1].ID, s["named"].ACL[0].ID, s["project"].Balancing.ID,
				x.mallory.Rules[0].ID, s["routed"].Firewall[0].ID}
			if release < "4.20" || s["tier"].Balancing == nil {
				removed = append(removed, tierAPI.ID)
			}
			fake.Update(func(w *cloudstacktest.World) {
				for _, id := range removed {
					if _, err := w.RemoveRule(id); err != nil {
						t.Fatal(err)
					}
				}
				s["ha"].Balancing.VMIDs = s["ha"].Balancing.VMIDs[:2]
			})
			fake.Read(func(w *cloudstacktest.World) { d.LoadWorld(t, w) })
			fromAPI, fromDB := compare("after the tenants' deletions", "ha")
			if diff := cmp.Diff(fromAPI["ha"].Rules, fromDB["ha"].Rules, onlyTheAPIShows); diff != "" {
				t.Errorf("ha's rules differ (-API +database):\n%s", diff)
			}
			want := map[string][]string{ // the vm_ids of each cluster's findings
				"isolated": {"", s["isolated"].Rules[2].VirtualMachineID},
				"tier":     {""},
				"named":    {""}, // its 6443 item
				"project":  {""},
				"mallory":  {x.mallory.Rules[0].VirtualMachineID},
			}
			if release < "4.20" {
				want["routed"] = []string{""}
			}
			for name, side := range fromAPI {
				var ids []string
				for _, f := range side.Findings {
					ids = append(ids, f.VMID)
				}
				if diff := cmp.Diff(want[name], ids, cmpopts.EquateEmpty()); diff != "" && name != "ha" {
					t.Errorf("%s: finding vm_ids (-want +got):\n%s\n%+v", name, diff, side.Findings)
				}
			}
			ha := fromDB["ha"].Findings
			if len(ha) != 1 || ha[0].VMID != "" || !strings.Contains(ha[0].Message, "control VM "+s["ha"].Control[2].Name+" behind the load-balancer rule api-lb") {
				t.Errorf("ha through the database: %+v, want its third control VM outside api-lb", ha)
			}
		})
	}
}
