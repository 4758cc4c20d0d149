package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompareDeployedUnmapped: a VM CloudStack records as deployed by CKS (vmtype cksnode, 4.20 on)
// that is in no map is an unmapped_vm of one cluster of its owner whatever its name; never of
// another tenant's cluster, never twice, and it explains a count gap and a node of its name.
func TestCompareDeployedUnmapped(t *testing.T) {
	t.Parallel()
	deployed := func(id, name, account string) VM {
		v := vm(id, name, "Running")
		v.Account, v.CKSNode = account, true
		return v
	}
	tests := []struct {
		name     string
		edit     func(w *world)
		wantVM   []brief
		wantNode []brief
	}{
		{name: "a CKS VM the map lost, renamed by its tenant", edit: func(w *world) {
			w.vms = append(w.vms, deployed("x1", "renamed", "alice"))
		}, wantVM: []brief{{"unmapped_vm", "x1", "renamed"}}},
		{name: "a CKS VM in the map is none", edit: func(w *world) {
			w.vms[1].CKSNode = true
		}},
		{name: "hostile: another tenant's CKS VM is not this cluster's", edit: func(w *world) {
			w.vms = append(w.vms, deployed("m1", "test-node-1a1c6eb8176", "mallory"), deployed("m2", "renamed", "mallory"))
		}},
		{name: "a CKS VM named as the cluster's node is reported once, by its name", edit: func(w *world) {
			w.vms = append(w.vms, deployed("x1", "test-node-1a1c6ec0000", "alice"))
		}, wantVM: []brief{{"unmapped_vm", "x1", "test-node-1a1c6ec0000"}}},
		{name: "a CKS VM named as another cluster's node of the owner is that cluster's", edit: func(w *world) {
			w.others = append(w.others, Cluster{ID: "k2", Name: "other", State: "Running", Account: "alice", DomainID: "d1", Created: old})
			w.vms = append(w.vms, deployed("x1", "other-node-1a1c6ec0000", "alice"))
		}},
		{name: "of two clusters of the owner, the one created last before the VM", edit: func(w *world) {
			w.cluster.Created = old.Add(-2 * time.Hour)
			w.others = append(w.others, Cluster{ID: "k2", Name: "other", State: "Running", Account: "alice", DomainID: "d1", Created: old.Add(-time.Hour)})
			w.vms = append(w.vms, deployed("x1", "renamed", "alice"))
		}},
		{name: "explains the count gap of its lost map row and matches its node", edit: func(w *world) {
			unmapRow(w, "w2")
			w.vms[2].CKSNode = true
		}, wantVM: []brief{{"unmapped_vm", "w2", "test-node-1a1c6ebf01d"}}},
		{name: "a worker's map row deleted and the VM renamed", edit: func(w *world) {
			unmapRow(w, "w2")
			w.vms[2].CKSNode, w.vms[2].Name = true, "renamed"
			w.nodes = NodesRead([]string{"test-control-1a1c6eb7f00", "test-node-1a1c6eb8176", "renamed"}, nil)
		}, wantVM: []brief{{"unmapped_vm", "w2", "renamed"}}},
		{name: "within its grace period or on its way out", edit: func(w *world) {
			young, gone := deployed("x1", "renamed", "alice"), deployed("x2", "renamed-2", "alice")
			young.Created, gone.State = now.Add(-time.Minute), "Destroyed"
			w.vms = append(w.vms, young, gone)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := baseWorld()
			if tt.edit != nil {
				tt.edit(&w)
			}
			res := w.compare()
			if diff := cmp.Diff(tt.wantVM, briefs(res.VM)); diff != "" {
				t.Errorf("VM side (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNode, briefs(res.Node)); diff != "" {
				t.Errorf("node side (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeployedMessage names the VM, says how CloudStack records it and what CKS leaves out.
func TestDeployedMessage(t *testing.T) {
	w := baseWorld()
	v := vm("x1", "renamed", "Stopped")
	v.CKSNode = true
	w.vms = append(w.vms, v)
	res := w.compare()
	if len(res.VM) != 1 {
		t.Fatalf("findings %+v", res.VM)
	}
	want := "VM renamed (x1, Stopped) was deployed by CKS (vmtype cksnode) for the owner of Kubernetes cluster test but is not one of the VMs of any cluster in CloudStack: no scale, upgrade or delete of the cluster will include it"
	if got := res.VM[0].Message; got != want || !strings.Contains(got, "cksnode") {
		t.Errorf("message\n%s\nwant\n%s", got, want)
	}
}
