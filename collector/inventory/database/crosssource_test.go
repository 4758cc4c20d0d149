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

// crossWorld is what newCrossWorld built in the one model of a cloud both fakes share (the fake
// API serves it and MariaDB holds its rendering), with the Kubernetes nodes each cluster's kubectl
// reports.
type crossWorld struct {
	sets  map[string]*cloudstacktest.ClusterSet // by cluster name
	stray *cloudstacktest.VM
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
func newCrossWorld(w *cloudstacktest.World) *crossWorld {
	x := &crossWorld{sets: map[string]*cloudstacktest.ClusterSet{}, nodes: map[string]collector.NodeList{}}
	add := func(spec cloudstacktest.ClusterSpec) *cloudstacktest.ClusterSet {
		spec.Created = xCreated
		if spec.ProjectID == "" {
			spec.Account = "alice"
		}
		s := w.BuildCluster(spec)
		x.sets[spec.Name] = s
		var names []string
		for _, v := range s.VMs() {
			names = append(names, v.Name)
		}
		x.nodes[s.Cluster.ID] = collector.NodesRead(names, nil)
		return s
	}
	stray := func(c *cloudstacktest.Cluster, name string, at time.Time) *cloudstacktest.VM {
		v := w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Created: at}.Of(c))
		v.Account, v.ProjectID, v.Project = "alice", "", "" // alice's, whoever owns c
		return v
	}

	test := add(cloudstacktest.ClusterSpec{Name: "test", Control: 1, Workers: 2})

	analytics := add(cloudstacktest.ClusterSpec{Name: "analytics", Control: 1, Workers: 2})
	analytics.Cluster.VMMap = analytics.Cluster.VMMap[:2]

	// The Destroyed worker is still listed by Kubernetes (NotReady): it matches its mapped VM by
	// name, so no node finding; a Destroyed VM is never expected to be a node either. The first
	// control node is Stopped (mapped_vm_not_running, no node finding): both sources must then
	// reach kubectl on the second, Running one (public port 2223), which the inventory comparison
	// below checks.
	prod := add(cloudstacktest.ClusterSpec{Name: "prod", Control: 3, Workers: 2})
	prod.Workers[0].State = "Destroyed"
	prod.Control[0].State = "Stopped"

	add(cloudstacktest.ClusterSpec{Name: "ci", Control: 1, Workers: 1})
	x.stray = stray(test.Cluster, fmt.Sprintf("ci-node-%x", xNow.Add(-20*time.Minute).UnixMilli()), xNow.Add(-20*time.Minute))
	x.stray.NetworkID, x.stray.IPAddress = "net-stray", "192.168.50.10"

	blue := add(cloudstacktest.ClusterSpec{Name: "blue-k8s", ProjectID: "00000003-0000-4000-8000-000000000001", Project: "blue", Control: 1, Workers: 1})
	stray(blue.Cluster, fmt.Sprintf("blue-k8s-node-%x", xCreated.UnixMilli()+999), xCreated)

	staging := add(cloudstacktest.ClusterSpec{Name: "staging", Control: 1, Workers: 2, State: "Scaling"})
	stray(staging.Cluster, fmt.Sprintf("staging-node-%x", xNow.Add(-time.Minute).UnixMilli()), xNow.Add(-time.Minute))
	delete(x.nodes, staging.Cluster.ID) // a skipped cluster's nodes are not listed

	kubelet := add(cloudstacktest.ClusterSpec{Name: "kubelet", Control: 1, Workers: 2})
	x.nodes[kubelet.Cluster.ID] = collector.NodesRead([]string{kubelet.Control[0].Name, kubelet.Workers[1].Name, "kubelet-ghost"}, nil)

	dark := add(cloudstacktest.ClusterSpec{Name: "dark", Control: 1, Workers: 1})
	x.nodes[dark.Cluster.ID] = collector.NodeList{Err: "timeout"}
	return x
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
			VM: findings(s.On(collector.SideVM)), Node: findings(s.On(collector.SideNode))}
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

// databaseSource renders the fake's world into a fresh database and returns a source reading it.
func databaseSource(t *testing.T, db *mariadbtest.DB, fake *cloudstacktest.Server) (*database.Source, *mariadbtest.Database) {
	t.Helper()
	var d *mariadbtest.Database
	fake.Read(func(w *cloudstacktest.World) { d = db.NewDatabaseOf(t, w) })
	dbd := config.Defaults().Database
	src, err := database.New(database.Options{DSN: d.ReaderDSN(), MaxOpenConns: dbd.MaxOpenConns, MaxIdleConns: dbd.MaxIdleConns,
		ConnMaxLifetime: dbd.ConnMaxLifetime, QueryTimeout: dbd.QueryTimeout, IncludeProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, d
}

// TestSameFindingsFromAPIAndDatabase builds one cloud, serves it from the fake CloudStack API and
// renders it into MariaDB, and checks that the drift check finds the same drift whichever source
// read it. Then it adds the two map rows of scenario 3 (docs/scenarios.md), which only the
// database can see.
func TestSameFindingsFromAPIAndDatabase(t *testing.T) {
	db := mariadbtest.Start(t)
	fake := cloudstacktest.NewServer()
	t.Cleanup(fake.Close)
	var x *crossWorld
	fake.Update(func(w *cloudstacktest.World) { x = newCrossWorld(w) })
	dbSrc, d := databaseSource(t, db, fake)
	def := config.Defaults().CloudStack
	apiSrc, err := api.New(api.Options{API: cloudstackapi.Options{Endpoint: fake.Endpoint(), APIKey: fake.APIKey(), SecretKey: fake.SecretKey(), Timeout: def.Timeout},
		PageSize: def.PageSize, IncludeProjects: true})
	if err != nil {
		t.Fatal(err)
	}

	// What both sources must find, cluster by cluster.
	s := x.sets
	unmapped := func(c string, v *cloudstacktest.VM) finding {
		return finding{Kind: "unmapped_vm", VMID: v.ID, VMName: v.Name,
			Message: fmt.Sprintf("VM %s (%s, %s) is named as a node of Kubernetes cluster %s but is not one of its VMs in CloudStack", v.Name, v.ID, v.State, c)}
	}
	analyticsW2, prodW1, prodC1, kubeletW1 := s["analytics"].Workers[1], s["prod"].Workers[0], s["prod"].Control[0], s["kubelet"].Workers[0]
	want := map[string]view{
		s["test"].Cluster.ID:      {Name: "test", Checked: true, NodesReachable: true},
		s["analytics"].Cluster.ID: {Name: "analytics", Checked: true, NodesReachable: true, VM: []finding{unmapped("analytics", analyticsW2)}},
		s["prod"].Cluster.ID: {Name: "prod", Checked: true, NodesReachable: true, VM: []finding{{Kind: "mapped_vm_expunged", VMID: prodW1.ID, VMName: prodW1.Name,
			Message: fmt.Sprintf("VM %s (%s) is one of the VMs of Kubernetes cluster prod in CloudStack, but has been or is being expunged", prodW1.Name, prodW1.ID)},
			{Kind: "mapped_vm_not_running", VMID: prodC1.ID, VMName: prodC1.Name,
				Message: fmt.Sprintf("VM %s (%s) of Kubernetes cluster prod is Stopped in CloudStack, not Running: CloudStack keeps the cluster in Alert, "+
					"and its next upgrade, which reaches every node over SSH, fails until the VM is started", prodC1.Name, prodC1.ID)}}},
		s["ci"].Cluster.ID:       {Name: "ci", Checked: true, NodesReachable: true, VM: []finding{unmapped("ci", x.stray)}},
		s["blue-k8s"].Cluster.ID: {Name: "blue-k8s", Checked: true, NodesReachable: true},
		s["staging"].Cluster.ID:  {Name: "staging"},
		s["kubelet"].Cluster.ID: {Name: "kubelet", Checked: true, NodesReachable: true, Node: []finding{
			{Kind: "vm_not_a_node", VMID: kubeletW1.ID, VMName: kubeletW1.Name,
				Message: fmt.Sprintf("VM %s (%s) of Kubernetes cluster kubelet is running but is not a Kubernetes node of the cluster", kubeletW1.Name, kubeletW1.ID)},
			{Kind: "node_without_vm", VMName: "kubelet-ghost", Message: "Kubernetes node kubelet-ghost of cluster kubelet has no VM in CloudStack"},
		}},
		s["dark"].Cluster.ID: {Name: "dark", Checked: true},
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
	// the database knows internal ids, that the map rows are visible and which VMs are behind a
	// load-balancer rule.
	ignoreDBOnly := cmp.Options{
		cmpopts.IgnoreFields(collector.Cluster{}, "MapRowsVisible"),
		cmpopts.IgnoreFields(collector.BalancingRule{}, "VMIDs", "VMsRead"),
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
			if c.ID == s["prod"].Cluster.ID && c.SSH != wantSSH {
				t.Errorf("%s source: prod's first control node is Stopped, SSH target %+v, want the second's %+v", what, c.SSH, wantSSH)
			}
		}
	}

	// Scenario 3: two rows inserted into test's map. One names the VM of a node removed from
	// prod the day before, expunged: removed set, state Expunging; the other VM id 999999, which
	// no VM has. The database is loaded with the changed cloud.
	test := s["test"].Cluster
	fake.Update(func(w *cloudstacktest.World) {
		w.AddVM(cloudstacktest.VM{InternalID: goneID, ID: goneUUID, Name: goneName, State: "Expunging",
			Created: xCreated.Add(-24 * time.Hour), Removed: true}.Of(test))
		test.VMMap = append(test.VMMap, goneID, missingID)
	})
	fake.Read(func(w *cloudstacktest.World) { d.LoadWorld(t, w) })

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
		if c.ID == test.ID && len(c.Mapped) != 3 {
			t.Errorf("API source shows %d VMs of test, want its 3: %+v", len(c.Mapped), c.Mapped)
		}
	}

	// The database source reads the rows themselves.
	wantDB := map[string]view{}
	for id, v := range want {
		wantDB[id] = v
	}
	wantDB[test.ID] = view{Name: "test", Checked: true, NodesReachable: true, VM: []finding{
		{Kind: "mapped_vm_expunged", VMID: goneUUID, VMName: goneName,
			Message: "VM " + goneName + " (" + goneUUID + ") is one of the VMs of Kubernetes cluster test in CloudStack, but has been or is being expunged"},
		{Kind: "mapped_vm_missing", VMID: "999999",
			Message: "VM with ID 999999 is one of the VMs of Kubernetes cluster test in CloudStack, but does not exist"},
	}}
	if diff := cmp.Diff(wantDB, fromDB); diff != "" {
		t.Errorf("database source after scenario 3's rows: findings (-want +got):\n%s", diff)
	}
}
