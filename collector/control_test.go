package collector

import "testing"

func TestFirstControl(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: "u", Name: "test"}
	tests := []struct {
		name    string
		vms     []ControlCandidate
		flagged bool
		want    int
	}{
		{"the first control VM", []ControlCandidate{{Name: "test-node-1", State: "Running"}, {Name: "test-control-1", State: "Running"}, {Name: "test-control-2", State: "Running"}}, false, 1},
		{"a Running control VM before a Stopped one", []ControlCandidate{{Name: "test-control-1", State: "Stopped"}, {Name: "test-control-2", State: "Running"}}, false, 1},
		{"no Running control VM: the first", []ControlCandidate{{Name: "test-control-1", State: "Destroyed"}, {Name: "test-control-2", State: "Stopped"}}, false, 0},
		{"never an etcd VM", []ControlCandidate{{Name: "test-control-etcd-1-1a", State: "Running", Etcd: true}, {Name: "test-node-1", State: "Running"}}, false, 1},
		{"the flag wins over the name", []ControlCandidate{{Name: "test-control-1", State: "Running"}, {Name: "renamed", State: "Running", Control: true}}, true, 1},
		{"flag unknown: the name", []ControlCandidate{{Name: "test-control-1", State: "Running"}, {Name: "renamed", State: "Running", Control: true}}, false, 0},
		{"none", []ControlCandidate{{Name: "test-node-1", State: "Stopped"}}, false, -1},
	}
	for _, tt := range tests {
		if got := FirstControl(c, tt.vms, tt.flagged); got != tt.want {
			t.Errorf("%s: FirstControl = %d, want %d", tt.name, got, tt.want)
		}
	}
}
