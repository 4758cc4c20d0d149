package collector

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	now   = time.Date(2026, 6, 5, 20, 20, 29, 0, time.UTC)
	old   = now.Add(-40 * time.Minute)
	grace = 15 * time.Minute
)

// world is a test cluster "test" (1 control, 2 workers) in account "alice", all VMs mapped.
type world struct {
	cluster Cluster
	others  []Cluster // other clusters of the inventory
	vms     []VM
	nodes   NodeList
}

func vm(id, name, state string) VM {
	return VM{ID: id, Name: name, State: state, Account: "alice", DomainID: "d1", Created: old}
}

func mapped(v VM) MappedVM {
	return MappedVM{ID: v.ID, Name: v.Name, State: v.State, Created: v.Created}
}

func baseWorld() world {
	vms := []VM{
		vm("c1", "test-control-1a1c6eb7f00", "Running"),
		vm("w1", "test-node-1a1c6eb8176", "Running"),
		vm("w2", "test-node-1a1c6ebf01d", "Running"),
	}
	c := Cluster{ID: "k1", Name: "test", State: "Running", ClusterType: "CloudManaged", Account: "alice", DomainID: "d1",
		ControlNodes: 1, WorkerNodes: 2}
	for _, v := range vms {
		c.Mapped = append(c.Mapped, mapped(v))
	}
	return world{cluster: c, vms: vms, nodes: NodesRead(
		[]string{"test-control-1a1c6eb7f00", "test-node-1a1c6eb8176", "test-node-1a1c6ebf01d"}, nil)}
}

func (w world) compare() Result {
	idx := NewIndex(Inventory{Clusters: append([]Cluster{w.cluster}, w.others...), VMs: w.vms})
	return Compare(w.cluster, idx, w.nodes, now, grace)
}

// brief is a finding without its message, for compact expectations.
type brief struct{ Kind, ID, Name string }

func briefs(fs []Finding) []brief {
	var out []brief
	for _, f := range fs {
		out = append(out, brief{string(f.Kind), f.VMID, f.VMName})
	}
	return out
}

func unmapRow(w *world, id string) {
	var keep []MappedVM
	for _, m := range w.cluster.Mapped {
		if m.ID != id {
			keep = append(keep, m)
		}
	}
	w.cluster.Mapped = keep
}

func TestCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		edit     func(w *world)
		wantVM   []brief
		wantNode []brief
	}{
		{name: "scenario 1: baseline, everything matches"},
		{
			name:   "scenario 2: worker's map row deleted",
			edit:   func(w *world) { unmapRow(w, "w2") },
			wantVM: []brief{{"unmapped_vm", "w2", "test-node-1a1c6ebf01d"}},
		},
		{
			name: "scenario 3 (API view): mapped VM Destroyed, not yet expunged",
			edit: func(w *world) {
				w.cluster.Mapped[1].State = "Destroyed"
				w.vms[1].State = "Destroyed"
				w.nodes.Names = []string{"test-control-1a1c6eb7f00", "test-node-1a1c6ebf01d"}
			},
			wantVM: []brief{{"mapped_vm_expunged", "w1", "test-node-1a1c6eb8176"}},
		},
		{
			name: "map row of an expunged VM hidden by the API: count gap",
			edit: func(w *world) {
				unmapRow(w, "w1")
				w.vms = w.vms[:1:1]
				w.vms = append(w.vms, vm("w2", "test-node-1a1c6ebf01d", "Running"))
				w.nodes.Names = []string{"test-control-1a1c6eb7f00", "test-node-1a1c6ebf01d"}
			},
			wantVM: []brief{{"vm_map_incomplete", "", ""}},
		},
		{
			name: "database view: rows of an expunged and of a missing VM",
			edit: func(w *world) {
				w.cluster.MapRowsVisible = true
				w.cluster.Mapped = append(w.cluster.Mapped,
					MappedVM{ID: "x1", InternalID: 489, Name: "other-node-1a1c2dc4f71", State: "Expunging", Removed: true, Created: old},
					MappedVM{InternalID: 999999, Missing: true})
			},
			wantVM: []brief{{"mapped_vm_expunged", "x1", "other-node-1a1c2dc4f71"}, {"mapped_vm_missing", "999999", ""}},
		},
		{
			name:     "scenario 4: running VM is not a Kubernetes node",
			edit:     func(w *world) { w.nodes.Names = []string{"test-control-1a1c6eb7f00", "test-node-1a1c6ebf01d"} },
			wantNode: []brief{{"vm_not_a_node", "w1", "test-node-1a1c6eb8176"}},
		},
		{
			name:   "scenario 5: kubectl unreachable, only the VM side runs",
			edit:   func(w *world) { unmapRow(w, "w2"); w.nodes = NodeList{Err: "timeout"} },
			wantVM: []brief{{"unmapped_vm", "w2", "test-node-1a1c6ebf01d"}},
		},
		{
			name: "scenario 7: stray VM within its grace period is not flagged",
			edit: func(w *world) {
				v := vm("s1", "test-node-1a1c6f00000", "Running")
				v.Created = now.Add(-5 * time.Minute)
				w.vms = append(w.vms, v)
			},
		},
		{
			name:   "scenario 7: stray VM after its grace period, other network, same account",
			edit:   func(w *world) { w.vms = append(w.vms, vm("s1", "test-node-1a1c6f00000", "Running")) },
			wantVM: []brief{{"unmapped_vm", "s1", "test-node-1a1c6f00000"}},
		},
		{
			name: "young mapped VM that is not yet a node is not flagged",
			edit: func(w *world) {
				w.cluster.Mapped[1].Created = now.Add(-time.Minute)
				w.nodes.Names = []string{"test-control-1a1c6eb7f00", "test-node-1a1c6ebf01d"}
			},
		},
		{
			name: "stopped mapped VM is not expected as a node, but is mapped_vm_not_running",
			edit: func(w *world) {
				w.cluster.Mapped[1].State = "Stopped"
				w.nodes.Names = []string{"test-control-1a1c6eb7f00", "test-node-1a1c6ebf01d"}
			},
			wantVM: []brief{{"mapped_vm_not_running", "w1", "test-node-1a1c6eb8176"}},
		},
		{
			name:   "a scale-down left a worker more than the size in the map: vm_map_excess",
			edit:   func(w *world) { w.cluster.WorkerNodes = 1 },
			wantVM: []brief{{"vm_map_excess", "", ""}},
		},
		{
			name: "look-alike VM of another account is not this cluster's",
			edit: func(w *world) {
				v := vm("s1", "test-node-1a1c6f00000", "Running")
				v.Account = "bob"
				w.vms = append(w.vms, v)
			},
		},
		{
			name: "look-alike VM in a project is not an account cluster's",
			edit: func(w *world) {
				v := vm("s1", "test-node-1a1c6f00000", "Running")
				v.ProjectID = "p1"
				w.vms = append(w.vms, v)
			},
		},
		{
			name: "project-owned cluster finds a stray VM of its project",
			edit: func(w *world) {
				w.cluster.ProjectID = "p1"
				w.cluster.Account = "PrjAcct-p-1"
				v := vm("s1", "test-node-1a1c6f00000", "Running")
				v.ProjectID, v.Account = "p1", "PrjAcct-p-1"
				w.vms = append(w.vms, v)
			},
			wantVM: []brief{{"unmapped_vm", "s1", "test-node-1a1c6f00000"}},
		},
		{
			name: "unmapped VM that is being expunged is not reported",
			edit: func(w *world) { w.vms = append(w.vms, vm("s1", "test-node-1a1c6f00000", "Expunging")) },
		},
		{
			name: "FQDN node names match by their first label",
			edit: func(w *world) {
				w.nodes.Names = []string{"test-control-1a1c6eb7f00.cluster.local", "test-node-1a1c6eb8176.cluster.local", "TEST-NODE-1A1C6EBF01D"}
			},
		},
		{
			name:     "node that matches no VM",
			edit:     func(w *world) { w.nodes.Names = append(w.nodes.Names, "handmade-node") },
			wantNode: []brief{{"node_without_vm", "", "handmade-node"}},
		},
		{
			name: "etcd VMs are never required as nodes",
			edit: func(w *world) {
				e := vm("e1", "test-etcd-1-1a1c6eb0000", "Running")
				w.vms = append(w.vms, e)
				w.cluster.Mapped = append(w.cluster.Mapped, mapped(e))
				w.cluster.EtcdNodes = 1
			},
		},
		{
			name: "etcd VM missing from the map is unmapped",
			edit: func(w *world) {
				w.vms = append(w.vms, vm("e1", "test-etcd-1-1a1c6eb0000", "Running"))
				w.cluster.EtcdNodes = 1
			},
			wantVM: []brief{{"unmapped_vm", "e1", "test-etcd-1-1a1c6eb0000"}},
		},
		{
			name: "legacy names: <prefix>-control and <prefix>-node-<i>",
			edit: func(w *world) {
				*w = world{}
				w.vms = []VM{vm("c1", "test-control", "Running"), vm("w1", "test-node-1", "Running"), vm("w2", "test-node-2", "Running")}
				w.cluster = Cluster{ID: "k1", Name: "test", State: "Running", Account: "alice", DomainID: "d1", ControlNodes: 1, WorkerNodes: 2}
				w.cluster.Mapped = []MappedVM{mapped(w.vms[0]), mapped(w.vms[1])}
				w.nodes = NodesRead([]string{"test-control", "test-node-1", "test-node-2"}, nil)
			},
			wantVM: []brief{{"unmapped_vm", "w2", "test-node-2"}},
		},
		{
			name: "external node with an arbitrary name is a node",
			edit: func(w *world) {
				x := vm("x1", "my-own-worker", "Running")
				w.vms = append(w.vms, x)
				w.cluster.Mapped = append(w.cluster.Mapped, mapped(x))
				w.cluster.WorkerNodes = 3
				w.nodes.Names = append(w.nodes.Names, "my-own-worker")
			},
		},
		{
			name: "VM mapped to another cluster is not unmapped here",
			edit: func(w *world) {
				w.vms = append(w.vms, vm("o1", "test-node-1a1c6f00000", "Running"))
				w.others = []Cluster{{ID: "k2", Name: "other", Account: "alice", DomainID: "d1",
					Mapped: []MappedVM{{ID: "o1", Name: "test-node-1a1c6f00000", State: "Running"}}}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := baseWorld()
			if tt.edit != nil {
				tt.edit(&w)
			}
			got := w.compare()
			if diff := cmp.Diff(tt.wantVM, briefs(got.VM)); diff != "" {
				t.Errorf("VM side (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNode, briefs(got.Node)); diff != "" {
				t.Errorf("node side (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareMessages(t *testing.T) {
	t.Parallel()
	w := baseWorld()
	unmapRow(&w, "w2")
	w.nodes.Names = append([]string{}, w.nodes.Names[0], w.nodes.Names[2], "ghost")
	got := w.compare()
	want := []string{
		"VM test-node-1a1c6ebf01d (w2, Running) is named as a node of Kubernetes cluster test but is not one of its VMs in CloudStack",
		"VM test-node-1a1c6eb8176 (w1) of Kubernetes cluster test is running but is not a Kubernetes node of the cluster",
		"Kubernetes node ghost of cluster test has no VM in CloudStack",
	}
	var msgs []string
	for _, f := range append(got.VM, got.Node...) {
		msgs = append(msgs, f.Message)
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestCountGapMessage(t *testing.T) {
	t.Parallel()
	w := baseWorld()
	w.cluster.Mapped = w.cluster.Mapped[:1]
	w.vms = w.vms[:1]
	got := w.compare()
	want := "Kubernetes cluster test should have 3 VMs but its VM map in CloudStack shows 1: 2 missing or expunged"
	if len(got.VM) != 1 || got.VM[0].Message != want {
		t.Fatalf("got %+v, want one finding %q", got.VM, want)
	}
}

func TestCountGapExplainedByUnmappedVMs(t *testing.T) {
	t.Parallel()
	w := baseWorld()
	unmapRow(&w, "w1")
	unmapRow(&w, "w2")
	got := w.compare()
	if diff := cmp.Diff([]brief{{"unmapped_vm", "w1", "test-node-1a1c6eb8176"}, {"unmapped_vm", "w2", "test-node-1a1c6ebf01d"}}, briefs(got.VM)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
