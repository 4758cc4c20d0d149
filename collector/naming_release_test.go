package collector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNodeNamesOfEveryRelease reads the names CKS gave control and worker VMs in each release:
// "<prefix>-master" (one control node) or "<prefix>-master-<i>" (several), "<prefix>-node-<i>",
// each with "-<n>" when the name was taken (KubernetesClusterStartWorker.createKubernetesMaster and
// createKubernetesAdditionalMaster, KubernetesClusterResourceModifierActionWorker
// .createKubernetesNode and getKubernetesClusterNodeAvailableName at 4.14.0.0 and 4.15.2.0);
// "<prefix>-control-<hex>" and "<prefix>-node-<hex>" from 4.16.0.0.
func TestNodeNamesOfEveryRelease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		wantPrefix  []string
		wantControl bool
	}{
		{"prod-master", []string{"prod"}, true},
		{"prod-master-1", []string{"prod"}, true},
		{"prod-master-2", []string{"prod"}, true},
		{"prod-master-1-1", []string{"prod"}, true},
		{"prod-master-x", nil, false},
		{"prod-node-1", []string{"prod"}, false},
		{"prod-node-1-2", []string{"prod"}, false},
		{"prod-control-18f3a9c2b41", []string{"prod"}, true},
		{"prod-node-18f3a9c2b41", []string{"prod"}, false},
		{"k8s-my-master-master", []string{"k8s-my-master"}, true},
		{"prod-masters", nil, false},
		{"prod-control", nil, false},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.wantPrefix, nodeNamePrefixes(tt.name)); diff != "" {
			t.Errorf("nodeNamePrefixes(%q) (-want +got):\n%s", tt.name, diff)
		}
		if got := isControlName(tt.name); got != tt.wantControl {
			t.Errorf("isControlName(%q) = %v, want %v", tt.name, got, tt.wantControl)
		}
	}
}

// TestFirstControlPre416 picks the control VM of clusters created before 4.16 by its -master
// name, in the order of the map, also when a worker comes first.
func TestFirstControlPre416(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: "u", Name: "old"}
	tests := []struct {
		name string
		vms  []ControlCandidate
		want int
	}{
		{"single master", []ControlCandidate{{Name: "old-node-1", State: "Running"}, {Name: "old-master", State: "Running"}}, 1},
		{"several masters, the first Stopped", []ControlCandidate{{Name: "old-master-1", State: "Stopped"}, {Name: "old-master-2", State: "Running"}, {Name: "old-node-1", State: "Running"}}, 1},
		{"a taken name", []ControlCandidate{{Name: "old-node-1", State: "Running"}, {Name: "old-master-1", State: "Running"}}, 1},
	}
	for _, tt := range tests {
		if got := FirstControl(c, tt.vms, false); got != tt.want {
			t.Errorf("%s: FirstControl = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestNamedAsNodesPre416 finds a stray -master VM of an old cluster as named as its node.
func TestNamedAsNodesPre416(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: "u", Name: "old", Account: "acme", DomainID: "d",
		Mapped: []MappedVM{{ID: "vm-1", Name: "old-master"}, {ID: "vm-2", Name: "old-node-1"}}}
	inv := Inventory{Clusters: []Cluster{c}, VMs: []VM{
		{ID: "vm-1", Name: "old-master", Account: "acme", DomainID: "d"},
		{ID: "vm-2", Name: "old-node-1", Account: "acme", DomainID: "d"},
		{ID: "vm-3", Name: "old-master-1", Account: "acme", DomainID: "d"},
		{ID: "vm-4", Name: "old-node-2-1", Account: "acme", DomainID: "d"},
		{ID: "vm-5", Name: "old-masters", Account: "acme", DomainID: "d"},
	}}
	var got []string
	for _, vm := range NewIndex(inv).NamedAsNodes(c) {
		got = append(got, vm.ID)
	}
	if diff := cmp.Diff([]string{"vm-3", "vm-4"}, got); diff != "" {
		t.Errorf("NamedAsNodes (-want +got):\n%s", diff)
	}
}

// TestFirstControlNeverExternal never picks a node added with addNodesToKubernetesCluster
// (isexternalnode, 4.21+) when no VM reads as a control node.
func TestFirstControlNeverExternal(t *testing.T) {
	c := Cluster{ID: "u", Name: "c"}
	vms := []ControlCandidate{{Name: "byo-1", State: "Running", External: true}, {Name: "renamed", State: "Running"}}
	if got := FirstControl(c, vms, false); got != 1 {
		t.Errorf("FirstControl = %d, want 1", got)
	}
}
