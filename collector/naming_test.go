package collector

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The cases of CloudStack's KubernetesClusterResourceModifierActionWorkerTest, plus the older rule.
func TestNodePrefixes(t *testing.T) {
	t.Parallel()
	const uuid = "2699b547-cb56-4a59-a2c6-331cfb21d2e4"
	tests := []struct {
		name string
		want []string
	}{
		{"k8s-cluster-01", []string{"k8s-cluster-01"}},
		{"k8s-CLUSTER-01", []string{"k8s-cluster-01"}},
		{strings.Repeat("c", 44), []string{strings.Repeat("c", 43), strings.Repeat("c", 40)}},
		{"1!" + strings.Repeat("c", 43), []string{"k8s-1" + strings.Repeat("c", 38), "k8s-1" + strings.Repeat("c", 35)}},
		{"Cluster!@#$%^&*()_+?.-01|<>", []string{"k8s-cluster-01"}},
		{"!@#$%^&*()_+?.|<>", []string{"k8s-" + uuid}},
		{"1 cluster", []string{"k8s-1cluster"}},
	}
	for _, tt := range tests {
		got := nodePrefixes(Cluster{ID: uuid, Name: tt.name})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("nodePrefixes(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestNodeNamePrefixes(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"test-node-1a1c6ebf01d":    {"test"},
		"test-control-1a1c6eb7f00": {"test"},
		"test-control":             nil, // never released
		"test-control-2":           {"test"},
		"test-node-3-1":            {"test"},
		"x-node-node-1":            {"x-node"},
		"my-own-worker":            nil,
		"test-node-zz":             nil,
		"-node-1":                  nil,
	}
	for name, want := range tests {
		if diff := cmp.Diff(want, nodeNamePrefixes(name)); diff != "" {
			t.Errorf("nodeNamePrefixes(%q) (-want +got):\n%s", name, diff)
		}
	}
}

func TestEtcdNaming(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: "u", Name: "Prod"}
	if !IsEtcdName(c, "Prod-etcd-1-1a1c6eb0000") {
		t.Error("Prod-etcd-1-1a1c6eb0000 not recognised as an etcd VM of Prod")
	}
	if IsEtcdName(c, "Prod-node-1a1c6eb0000") {
		t.Error("a worker was taken for an etcd VM")
	}
	long := Cluster{ID: "u", Name: strings.Repeat("a", 45)}
	if !IsEtcdName(long, strings.Repeat("a", 40)+"-2-1a1c6eb0000") {
		t.Error("etcd prefix of a long name is not cut to 40 characters")
	}
}

func TestNodeName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"Node-1.example.com": "node-1", "node-2": "node-2", " x ": "x"} {
		if got := nodeName(in); got != want {
			t.Errorf("nodeName(%q) = %q, want %q", in, got, want)
		}
	}
}
