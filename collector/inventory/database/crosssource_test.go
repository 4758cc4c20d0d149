package database_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/database"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// The cycle of scenario 3 (20:35:31, docs/scenarios.md); every cluster was created 40 minutes
// before it, past the 15-minute grace period. Whole seconds: both the API's dates and DATETIME
// columns have second resolution.
var (
	xNow     = time.Date(2026, 6, 5, 20, 35, 31, 0, time.UTC)
	xCreated = xNow.Add(-40 * time.Minute)
	xGrace   = 15 * time.Minute
)

// The expunged VM of scenario 3: a node removed from cluster "prod" the day before, whose
// vm_instance row has removed set and state Expunging. Internal id and uuid as in the report
// (MAPPED_VM:489, 5dad63d3-...), the same in both worlds.
const (
	goneID   = 489
	goneUUID = "5dad63d3-0000-4000-8000-000000000489"
	goneName = "prod-node-1a1c2dc4f71"
	// missingID is the VM id of scenario 3's second row: no vm_instance row has it.
	missingID = 999999
)

// crossWorld is one cloud, written as CloudStack's rows (mariadbtest) and mirrored into the fake
// API (cloudstacktest), with the Kubernetes nodes each cluster's kubectl reports.
type crossWorld struct {
	w     *mariadbtest.World
	alice *mariadbtest.Account
	blue  *mariadbtest.Project
	sets  map[string]*mariadbtest.ClusterSet // by cluster name
	stray *mariadbtest.VM
	nodes map[string]collector.NodeList // by cluster uuid; handed to both evaluations
}

// newCrossWorld builds one cluster per situation the API can show:
//
//	test       baseline (the report's fresh test cluster: 1 control node, 2 workers)
//	analytics  a worker's map row deleted                         -> unmapped_vm
//	prod       3 control nodes, the first Stopped; a mapped worker
//	           Destroyed                                           -> mapped_vm_expunged
//	ci         a stray VM named as a node, 20 minutes old, in the
//	           same account on another network                     -> unmapped_vm
//	blue-k8s   a project cluster, clean; a VM named like its nodes in
//	           account alice is not the project's and not flagged
//	staging    Scaling, with a new worker not yet mapped           -> skipped
//	kubelet    a worker missing from Kubernetes and a node with no VM
//	                                                               -> vm_not_a_node, node_without_vm
//	dark       kubectl unreachable: only the VM side is compared
func newCrossWorld() *crossWorld {
	w := mariadbtest.NewWorld()
	x := &crossWorld{w: w, alice: w.AddAccount("alice"), blue: w.AddProject("blue"),
		sets: map[string]*mariadbtest.ClusterSet{}, nodes: map[string]collector.NodeList{}}
	add := func(name string, owner *mariadbtest.Account, control, workers int, state string) *mariadbtest.ClusterSet {
		s := w.AddCluster(mariadbtest.ClusterSpec{Name: name, Owner: owner, Control: control, Workers: workers, Created: xCreated, State: state})
		x.sets[name] = s
		var names []string
		for _, v := range s.VMs() {
			names = append(names, v.Name)
		}
		x.nodes[s.Cluster.UUID] = collector.NodesRead(names, nil)
		return s
	}

	add("test", x.alice, 1, 2, "")

	analytics := add("analytics", x.alice, 1, 2, "")
	w.DeleteMapRow(analytics.Map[2])

	// The Destroyed worker is still listed by Kubernetes (NotReady): it matches its mapped VM by
	// name, so no node finding; a Destroyed VM is never expected to be a node either. The first
	// control node is Stopped (no finding either): both sources must then reach kubectl on the
	// second, Running one (public port 2223), which the inventory comparison below checks.
	prod := add("prod", x.alice, 3, 2, "")
	prod.Workers[0].State = "Destroyed"
	prod.Control[0].State = "Stopped"

	add("ci", x.alice, 1, 1, "")
	x.stray = w.AddVM(fmt.Sprintf("ci-node-%x", xNow.Add(-20*time.Minute).UnixMilli()), "Running", x.alice, xNow.Add(-20*time.Minute))
	w.AddNic(x.stray, w.AddNetwork("Isolated"), "192.168.50.10", true)

	add("blue-k8s", x.blue.Account, 1, 1, "")
	w.AddVM(fmt.Sprintf("blue-k8s-node-%x", xCreated.UnixMilli()+999), "Running", x.alice, xCreated)

	staging := add("staging", x.alice, 1, 2, "Scaling")
	w.AddVM(fmt.Sprintf("staging-node-%x", xNow.Add(-time.Minute).UnixMilli()), "Running", x.alice, xNow.Add(-time.Minute))
	delete(x.nodes, staging.Cluster.UUID) // a skipped cluster's nodes are not listed

	kubelet := add("kubelet", x.alice, 1, 2, "")
	x.nodes[kubelet.Cluster.UUID] = collector.NodesRead([]string{kubelet.Control[0].Name, kubelet.Workers[1].Name, "kubelet-ghost"}, nil)

	dark := add("dark", x.alice, 1, 1, "")
	x.nodes[dark.Cluster.UUID] = collector.NodeList{Err: "timeout"}
	return x
}

// mirror writes the rows of w into the fake API's world as CloudStack's API would show them: the
// same internal ids, uuids, names, states and times; a project's resources name the project, not
// its account (ApiResponseHelper sets one or the other); a VM's NIC on its network; the cluster's
// public address is its network's source NAT address. The map rows go to VMMap as they are; the
// fake drops rows of removed or missing VMs from virtualmachines, as CloudStack does.
func mirror(w *mariadbtest.World) func(*cloudstacktest.World) {
	return func(cw *cloudstacktest.World) {
		projects := map[int64]*mariadbtest.Project{}
		for _, p := range w.Projects {
			projects[p.Account.ID] = p
		}
		owner := func(a *mariadbtest.Account) (account, projectID, project string) {
			if p := projects[a.ID]; p != nil {
				return "", p.UUID, p.Name
			}
			return a.Name, "", ""
		}
		nic := map[int64]*mariadbtest.Nic{}
		for _, n := range w.Nics {
			if !n.Removed && (nic[n.VM.ID] == nil || n.Default) {
				nic[n.VM.ID] = n
			}
		}
		for _, v := range w.VMs {
			account, projectID, project := owner(v.Account)
			vm := cloudstacktest.VM{InternalID: v.ID, ID: v.UUID, Name: v.Name, DisplayName: v.DisplayName, State: v.State,
				Account: account, DomainID: v.Domain.UUID, Domain: v.Domain.Name, ProjectID: projectID, Project: project,
				ZoneID: w.Zone.UUID, ZoneName: w.Zone.Name, Created: v.Created, Removed: v.Removed}
			if n := nic[v.ID]; n != nil {
				vm.NetworkID, vm.IPAddress = n.Network.UUID, n.Address
			}
			cw.AddVM(vm)
		}
		for _, c := range w.Clusters {
			if c.Removed {
				continue
			}
			account, projectID, project := owner(c.Account)
			k := cloudstacktest.Cluster{ID: c.UUID, InternalID: c.ID, Name: c.Name, State: c.State, ClusterType: c.Type,
				ZoneID: c.Zone.UUID, ZoneName: c.Zone.Name, Account: account, DomainID: c.Domain.UUID, Domain: c.Domain.Name,
				ProjectID: projectID, Project: project, ControlNodes: c.ControlNodes, Size: c.Nodes, EtcdNodes: c.EtcdNodes,
				Created: c.Created}
			if c.Network != nil {
				k.NetworkID = c.Network.UUID
				for _, ip := range w.IPs {
					if ip.Network == c.Network && ip.SourceNAT && !ip.Removed {
						k.IPAddress, k.IPAddressID = ip.Address, ip.UUID
					}
				}
			}
			for _, m := range w.Maps {
				if m.ClusterID == c.ID {
					k.VMMap = append(k.VMMap, m.VMID)
				}
			}
			cw.AddCluster(k)
		}
		for _, r := range w.Rules {
			account, projectID, _ := owner(r.VM.Account)
			cw.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: r.IP.UUID, IPAddress: r.IP.Address,
				PublicPort: r.PublicPort, PrivatePort: r.PrivatePort, VirtualMachineID: r.VM.UUID, NetworkID: r.IP.Network.UUID,
				Account: account, DomainID: r.VM.Domain.UUID, ProjectID: projectID})
		}
	}
}

// view is what the comparison looks at of one cluster after a cycle.
type view struct {
	Name           string
	Checked        bool
	NodesReachable bool
	VM, Node       []finding
}

type finding struct{ Kind, VMID, VMName, Message string }

// evaluate runs the drift check of a cycle over inv, as the exporter does, and returns the
// clusters by uuid.
func evaluate(inv collector.Inventory, nodes map[string]collector.NodeList) map[string]view {
	out := map[string]view{}
	for _, s := range collector.Evaluate(nil, inv, nodes, xNow, xGrace) {
		out[s.Cluster.ID] = view{Name: s.Cluster.Name, Checked: s.Checked, NodesReachable: s.Nodes.Read(),
			VM: findings(s.VM), Node: findings(s.Node)}
	}
	return out
}

func findings(fs []collector.Finding) []finding {
	var out []finding
	for _, f := range fs {
		out = append(out, finding{Kind: string(f.Kind), VMID: f.VMID, VMName: f.VMName, Message: f.Message})
	}
	return out
}

func readInventory(t *testing.T, what string, src interface {
	Inventory(context.Context) (collector.Inventory, error)
}) collector.Inventory {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inv, err := src.Inventory(ctx)
	if err != nil {
		t.Fatalf("%s inventory: %v", what, err)
	}
	return inv
}

// TestSameFindingsFromAPIAndDatabase builds one cloud in the fake CloudStack API and in MariaDB
// and checks that the drift check finds the same drift whichever source read it. Then it adds the
// two map rows of scenario 3 (docs/scenarios.md), which only the database can see.
func TestSameFindingsFromAPIAndDatabase(t *testing.T) {
	db := mariadbtest.Start(t)
	x := newCrossWorld()

	d := db.NewDatabase(t)
	x.w.Load(t, d)
	dbd := config.Defaults().Database
	dbSrc, err := database.New(database.Options{DSN: d.ReaderDSN(), MaxOpenConns: dbd.MaxOpenConns, MaxIdleConns: dbd.MaxIdleConns,
		ConnMaxLifetime: dbd.ConnMaxLifetime, QueryTimeout: dbd.QueryTimeout, IncludeProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbSrc.Close() })

	fake := cloudstacktest.NewServer()
	t.Cleanup(fake.Close)
	fake.Update(mirror(x.w))
	def := config.Defaults().CloudStack
	apiSrc, err := api.New(api.Options{API: cloudstackapi.Options{Endpoint: fake.Endpoint(), APIKey: fake.APIKey(), SecretKey: fake.SecretKey(), Timeout: def.Timeout},
		PageSize: def.PageSize, IncludeProjects: true})
	if err != nil {
		t.Fatal(err)
	}

	// What both sources must find, cluster by cluster.
	s := x.sets
	unmapped := func(c string, v *mariadbtest.VM) finding {
		return finding{Kind: "unmapped_vm", VMID: v.UUID, VMName: v.Name,
			Message: fmt.Sprintf("VM %s (%s, %s) is named as a node of Kubernetes cluster %s but is not one of its VMs in CloudStack", v.Name, v.UUID, v.State, c)}
	}
	analyticsW2, prodW1, kubeletW1 := s["analytics"].Workers[1], s["prod"].Workers[0], s["kubelet"].Workers[0]
	want := map[string]view{
		s["test"].Cluster.UUID:      {Name: "test", Checked: true, NodesReachable: true},
		s["analytics"].Cluster.UUID: {Name: "analytics", Checked: true, NodesReachable: true, VM: []finding{unmapped("analytics", analyticsW2)}},
		s["prod"].Cluster.UUID: {Name: "prod", Checked: true, NodesReachable: true, VM: []finding{{Kind: "mapped_vm_expunged", VMID: prodW1.UUID, VMName: prodW1.Name,
			Message: fmt.Sprintf("VM %s (%s) is one of the VMs of Kubernetes cluster prod in CloudStack, but has been or is being expunged", prodW1.Name, prodW1.UUID)}}},
		s["ci"].Cluster.UUID:       {Name: "ci", Checked: true, NodesReachable: true, VM: []finding{unmapped("ci", x.stray)}},
		s["blue-k8s"].Cluster.UUID: {Name: "blue-k8s", Checked: true, NodesReachable: true},
		s["staging"].Cluster.UUID:  {Name: "staging"},
		s["kubelet"].Cluster.UUID: {Name: "kubelet", Checked: true, NodesReachable: true, Node: []finding{
			{Kind: "vm_not_a_node", VMID: kubeletW1.UUID, VMName: kubeletW1.Name,
				Message: fmt.Sprintf("VM %s (%s) of Kubernetes cluster kubelet is running but is not a Kubernetes node of the cluster", kubeletW1.Name, kubeletW1.UUID)},
			{Kind: "node_without_vm", VMName: "kubelet-ghost", Message: "Kubernetes node kubelet-ghost of cluster kubelet has no VM in CloudStack"},
		}},
		s["dark"].Cluster.UUID: {Name: "dark", Checked: true},
	}

	apiInv, dbInv := readInventory(t, "API", apiSrc), readInventory(t, "database", dbSrc)
	api, fromDB := evaluate(apiInv, x.nodes), evaluate(dbInv, x.nodes)
	if diff := cmp.Diff(want, api); diff != "" {
		t.Errorf("API source: findings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(api, fromDB); diff != "" {
		t.Errorf("findings differ between the sources (-API +database):\n%s", diff)
	}
	// Beyond the findings, the inventories themselves agree on everything the API shows: only
	// the database knows internal ids and that the map rows are visible.
	ignoreDBOnly := cmp.Options{
		cmpopts.IgnoreFields(collector.Cluster{}, "MapRowsVisible"),
		cmpopts.IgnoreFields(collector.MappedVM{}, "InternalID"),
		cmpopts.SortSlices(func(a, b collector.VM) bool { return a.ID < b.ID }),
		cmpopts.SortSlices(func(a, b collector.Cluster) bool { return a.ID < b.ID }),
		cmpopts.EquateEmpty(),
	}
	if diff := cmp.Diff(apiInv, dbInv, ignoreDBOnly); diff != "" {
		t.Errorf("inventories differ (-API +database):\n%s", diff)
	}
	for what, inv := range map[string]collector.Inventory{"API": apiInv, "database": dbInv} {
		wantSSH := collector.SSHTarget{Host: s["prod"].IP.Address, Port: s["prod"].Rules[1].PublicPort}
		for _, c := range inv.Clusters {
			if c.ID == s["prod"].Cluster.UUID && c.SSH != wantSSH {
				t.Errorf("%s source: prod's first control node is Stopped, SSH target %+v, want the second's %+v", what, c.SSH, wantSSH)
			}
		}
	}

	// Scenario 3: two rows inserted into test's map, in both worlds. One names the VM of a node
	// removed from prod the day before, expunged: removed set, state Expunging; the other VM id
	// 999999, which no VM has.
	test := s["test"].Cluster
	goneCreated := xCreated.Add(-24 * time.Hour)
	fake.Update(func(cw *cloudstacktest.World) {
		cw.AddVM(cloudstacktest.VM{InternalID: goneID, ID: goneUUID, Name: goneName, State: "Expunging", Account: "alice",
			DomainID: x.w.Root.UUID, Domain: "ROOT", ZoneID: x.w.Zone.UUID, ZoneName: x.w.Zone.Name, Created: goneCreated, Removed: true})
		for _, c := range cw.Clusters {
			if c.ID == test.UUID {
				c.VMMap = append(c.VMMap, goneID, missingID)
			}
		}
	})
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO vm_instance (id, uuid, name, instance_name, state, created, removed, account_id, domain_id) VALUES (?, ?, ?, ?, 'Expunging', ?, ?, ?, ?)",
			[]any{goneID, goneUUID, goneName, fmt.Sprintf("i-%d-%d-VM", x.alice.ID, goneID), goneCreated, goneCreated.Add(23 * time.Hour), x.alice.ID, x.w.Root.ID}},
		{"INSERT INTO user_vm (id, display_name) VALUES (?, ?)", []any{goneID, goneName}},
		{"INSERT INTO kubernetes_cluster_vm_map (cluster_id, vm_id) VALUES (?, ?), (?, ?)", []any{test.ID, goneID, test.ID, missingID}},
	} {
		if _, err := d.Admin.Exec(stmt.q, stmt.args...); err != nil {
			t.Fatalf("%s: %v", stmt.q, err)
		}
	}

	apiInv, dbInv = readInventory(t, "API", apiSrc), readInventory(t, "database", dbSrc)
	api, fromDB = evaluate(apiInv, x.nodes), evaluate(dbInv, x.nodes)

	// The API source sees nothing of the two rows: listKubernetesClusters silently skips map rows
	// whose VM is expunged or does not exist, and listVirtualMachines never lists an expunged VM.
	// A dangling row could only show as a count gap (vm_map_incomplete: fewer VMs than control
	// nodes + workers + etcd nodes), but these rows are extra: test still shows its 1 + 2 VMs, so
	// the counts add up and the API source reports nothing at all.
	if diff := cmp.Diff(want, api); diff != "" {
		t.Errorf("API source after scenario 3's rows: findings (-want +got):\n%s", diff)
	}
	for _, c := range apiInv.Clusters {
		if c.ID == test.UUID && len(c.Mapped) != 3 {
			t.Errorf("API source shows %d VMs of test, want its 3: %+v", len(c.Mapped), c.Mapped)
		}
	}

	// The database source reads the rows themselves.
	wantDB := map[string]view{}
	for id, v := range want {
		wantDB[id] = v
	}
	wantDB[test.UUID] = view{Name: "test", Checked: true, NodesReachable: true, VM: []finding{
		{Kind: "mapped_vm_expunged", VMID: goneUUID, VMName: goneName,
			Message: "VM " + goneName + " (" + goneUUID + ") is one of the VMs of Kubernetes cluster test in CloudStack, but has been or is being expunged"},
		{Kind: "mapped_vm_missing", VMID: "999999",
			Message: "VM with ID 999999 is one of the VMs of Kubernetes cluster test in CloudStack, but does not exist"},
	}}
	if diff := cmp.Diff(wantDB, fromDB); diff != "" {
		t.Errorf("database source after scenario 3's rows: findings (-want +got):\n%s", diff)
	}
}
