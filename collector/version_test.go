package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// skewWorld is baseWorld with CloudStack recording Kubernetes 1.24.0 for the cluster and every
// node reporting kubelet v1.24.0.
func skewWorld() world {
	w := baseWorld()
	w.cluster.KubernetesVersion = "1.24.0"
	w.nodes.Versions = map[string]string{}
	for _, n := range w.nodes.Names {
		w.nodes.Versions[n] = "v1.24.0"
	}
	return w
}

// TestCompareVersions: the rows of the version check (docs/scenarios.md, "Kubernetes version
// skew"). Only a known, well-formed version on both sides makes a finding.
func TestCompareVersions(t *testing.T) {
	t.Parallel()
	const control, worker = "test-control-1a1c6eb7f00", "test-node-1a1c6eb8176"
	tests := []struct {
		name     string
		edit     func(w *world)
		wantNode []brief
	}{
		{"equal", func(w *world) {}, nil},
		{"patch skew", func(w *world) { w.nodes.Versions[worker] = "v1.24.1" },
			[]brief{{"node_version_mismatch", "w1", worker}}},
		{"minor skew: every node still on the old version", func(w *world) {
			for n := range w.nodes.Versions {
				w.nodes.Versions[n] = "v1.23.3"
			}
		}, []brief{{"node_version_mismatch", "c1", control}, {"node_version_mismatch", "w1", worker},
			{"node_version_mismatch", "w2", "test-node-1a1c6ebf01d"}}},
		{"major skew", func(w *world) { w.nodes.Versions[control] = "v2.24.0" },
			[]brief{{"node_version_mismatch", "c1", control}}},
		{"unknown cluster version", func(w *world) {
			w.cluster.KubernetesVersion = ""
			w.nodes.Versions[worker] = "v1.23.3"
		}, nil},
		{"unparseable cluster version", func(w *world) {
			w.cluster.KubernetesVersion = "1.24"
			w.nodes.Versions[worker] = "v1.23.3"
		}, nil},
		{"unparseable kubelet version", func(w *world) { w.nodes.Versions[worker] = "Ready" }, nil},
		{"kubelet version cut short", func(w *world) { w.nodes.Versions[worker] = "v1.23" }, nil},
		{"unknown kubelet version (<none>, as the parser leaves it)", func(w *world) { delete(w.nodes.Versions, worker) }, nil},
		{"ssh output without versions", func(w *world) { w.nodes.Versions = nil }, nil},
		{"build metadata is not compared (k3s)", func(w *world) { w.nodes.Versions[worker] = "v1.24.0+k3s1" }, nil},
		{"a pre-release of the same version", func(w *world) { w.nodes.Versions[worker] = "v1.24.0-rc.1" }, nil},
		{"build metadata of another version", func(w *world) { w.nodes.Versions[worker] = "v1.23.3+k3s1" },
			[]brief{{"node_version_mismatch", "w1", worker}}},
		{"cluster version with a leading v", func(w *world) {
			w.cluster.KubernetesVersion = "v1.24.0"
		}, nil},
		{"node without a VM: vm_id empty", func(w *world) {
			w.nodes.Names = append(w.nodes.Names, "stray")
			w.nodes.Versions["stray"] = "v1.22.0"
		}, []brief{{"node_without_vm", "", "stray"}, {"node_version_mismatch", "", "stray"}}},
		{"node of an FQDN matches its VM", func(w *world) {
			w.nodes.Names[1] = worker + ".cluster.example"
			w.nodes.Versions = map[string]string{worker + ".cluster.example": "v1.23.3"}
		}, []brief{{"node_version_mismatch", "w1", worker + ".cluster.example"}}},
		{"node of a VM in its grace period", func(w *world) {
			w.cluster.Mapped[1].Created = now.Add(-5 * time.Minute)
			w.nodes.Versions[worker] = "v1.23.3"
		}, nil},
		{"a node CloudStack records on its kubelet's version (4.21: excluded from upgrades)", func(w *world) {
			w.cluster.Mapped[2].KubernetesVersion = "1.23.3"
			w.nodes.Versions["test-node-1a1c6ebf01d"] = "v1.23.3"
		}, nil},
		{"a node CloudStack records on another version than its kubelet's", func(w *world) {
			w.cluster.Mapped[2].KubernetesVersion = "1.23.3"
			w.nodes.Versions["test-node-1a1c6ebf01d"] = "v1.22.0"
		}, []brief{{"node_version_mismatch", "w2", "test-node-1a1c6ebf01d"}}},
		{"node side unreadable: no comparison", func(w *world) {
			w.nodes = NodeList{Names: w.nodes.Names, Versions: w.nodes.Versions, Err: "timeout"}
			w.nodes.Versions[worker] = "v1.23.3"
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := skewWorld()
			tt.edit(&w)
			res := w.compare()
			if len(res.VM) != 0 {
				t.Errorf("VM side: %v, want nothing", briefs(res.VM))
			}
			if diff := cmp.Diff(tt.wantNode, briefs(res.Node)); diff != "" {
				t.Errorf("node side (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVersionMismatchMessage(t *testing.T) {
	t.Parallel()
	w := skewWorld()
	w.cluster.KubernetesVersion = "1.24.0"
	w.nodes.Versions["test-node-1a1c6eb8176"] = "v1.23.3+k3s1"
	res := w.compare()
	if len(res.Node) != 1 {
		t.Fatalf("node side: %v, want one finding", briefs(res.Node))
	}
	want := "Kubernetes node test-node-1a1c6eb8176 of cluster test runs kubelet v1.23.3+k3s1 but the cluster's Kubernetes version in CloudStack is 1.24.0"
	if got := res.Node[0].Message; got != want {
		t.Errorf("message:\n got %s\nwant %s", got, want)
	}
	if k := res.Node[0].Kind; k.Side() != SideNode || k.PerCluster() {
		t.Errorf("%s: side %s, per cluster %v; want a node-side finding of its own node", k, k.Side(), k.PerCluster())
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // "" means not a version
	}{
		{"1.24.0", "1.24.0"},
		{"v1.23.3", "1.23.3"},
		{"v1.23.3+k3s1", "1.23.3"},
		{"v1.29.0-rc.1", "1.29.0"},
		{"v1.28.4-eks-1-28-20231201", "1.28.4"},
		{"v1.28.4-rc.0+abc.def", "1.28.4"},
		{"1.024.0", "1.24.0"},
		{"", ""},
		{"v", ""},
		{"1.24", ""},
		{"1.24.", ""},
		{"1.24.0.1", ""},
		{"1.24.0-", ""},
		{"1.24.0+", ""},
		{"1.24.0 ", ""},
		{"1.24.0-rc 1", ""},
		{"1.24.0-\x1b[31m", ""},
		{"V1.24.0", ""},
		{"vv1.24.0", ""},
		{"-1.24.0", ""},
		{"1.1234567890.0", ""},
		{"1.24.0-" + strings.Repeat("a", 60), ""},
		{"<none>", ""},
		{"Ready", ""},
	}
	for _, tt := range tests {
		v, ok := parseVersion(tt.in)
		got := ""
		if ok {
			got = v.String()
		}
		if got != tt.want {
			t.Errorf("parseVersion(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}
