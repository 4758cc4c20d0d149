package ssh

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestParseNodesVersions: the output of the default ssh.kubectl_command, as real kubectl prints
// custom columns (padded with spaces, "<none>" for a missing field), and the old "-o name" form.
func TestParseNodesVersions(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []collector.Node
	}{
		{"custom columns", "demo-control-18f3a2b4c5d   v1.28.4\ndemo-node-18f3a2b4c6e      v1.27.9\n",
			[]collector.Node{{Name: "demo-control-18f3a2b4c5d", KubeletVersion: "v1.28.4"}, {Name: "demo-node-18f3a2b4c6e", KubeletVersion: "v1.27.9"}}},
		{"build metadata and tabs", "a\tv1.23.3+k3s1\r\n", []collector.Node{{Name: "a", KubeletVersion: "v1.23.3+k3s1"}}},
		{"<none>: unknown", "a   <none>\n", []collector.Node{{Name: "a"}}},
		{"a version of other characters: unknown", "a   v1.28.4\x1b[31m\n", []collector.Node{{Name: "a"}}},
		{"a version longer than 64 bytes: unknown", "a v1.28.4-" + strings.Repeat("x", 60) + "\n", []collector.Node{{Name: "a"}}},
		{"a word for a version: kept, the check skips it", "a Ready\n", []collector.Node{{Name: "a", KubeletVersion: "Ready"}}},
		{"-o name: no versions", "node/a\nnode/b\n", []collector.Node{{Name: "a"}, {Name: "b"}}},
		{"both forms", "node/a\nb v1.28.4\n", []collector.Node{{Name: "a"}, {Name: "b", KubeletVersion: "v1.28.4"}}},
		{"a duplicate keeps its first version", "a v1.28.4\na v1.27.0\n", []collector.Node{{Name: "a", KubeletVersion: "v1.28.4"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNodes([]byte(tt.out), 1000)
			if err != nil {
				t.Fatalf("ParseNodes() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseNodes() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
