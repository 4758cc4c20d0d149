package collector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRestoreSkipped: after a start, a skipped cluster shows what was announced of it; a checked
// cluster, and a skipped one the last snapshot knows (even with no findings), are left alone.
func TestRestoreSkipped(t *testing.T) {
	t.Parallel()
	vm := []Finding{{Kind: KindUnmappedVM, VMID: "v1", VMName: "prod-node-1", Message: "m"}}
	node := []Finding{{Kind: KindNodeWithoutVM, VMName: "ghost", Message: "n"}}
	memory := func(string) map[Side][]Finding { return map[Side][]Finding{SideVM: vm, SideNode: node} }
	statuses := []ClusterStatus{
		{Cluster: Cluster{ID: "skipped-after-start", State: "Scaling"}},
		{Cluster: Cluster{ID: "checked", State: "Running"}, Checked: true},
		{Cluster: Cluster{ID: "skipped-known", State: "Scaling"}},
	}
	RestoreSkipped(statuses, []ClusterStatus{{Cluster: Cluster{ID: "skipped-known"}}}, memory)
	if diff := cmp.Diff(vm, statuses[0].On(SideVM)); diff != "" {
		t.Errorf("skipped after a start: VM (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(node, statuses[0].On(SideNode)); diff != "" {
		t.Errorf("skipped after a start: Node (-want +got):\n%s", diff)
	}
	for _, s := range statuses[1:] {
		if fs := s.Findings(); len(fs) != 0 {
			t.Errorf("%s: findings %v restored", s.Cluster.ID, fs)
		}
	}
}
