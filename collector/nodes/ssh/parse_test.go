package ssh

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

func TestParseNodes(t *testing.T) {
	long := strings.Repeat("a", 250) + ".io"
	tests := []struct {
		name string
		out  string
		want []string // nil means an error with reason bad_output
	}{
		{"normal", "node/demo-control-18f3a2b4c5d\nnode/demo-node-18f3a2b4c6e\n",
			[]string{"demo-control-18f3a2b4c5d", "demo-node-18f3a2b4c6e"}},
		{"fqdn names", "node/worker-1.example.com\nnode/worker-2.example.com\n",
			[]string{"worker-1.example.com", "worker-2.example.com"}},
		{"no trailing newline", "node/a\nnode/b", []string{"a", "b"}},
		{"crlf", "node/a\r\nnode/b\r\n", []string{"a", "b"}},
		{"blank lines and spaces", "\n  node/a  \n\n\t\nnode/b\n\n", []string{"a", "b"}},
		{"duplicates", "node/a\nnode/b\nnode/a\n", []string{"a", "b"}},
		{"253 characters", "node/" + long, []string{long}},
		{"254 characters", "node/" + long + "x", nil},
		{"empty", "", nil},
		{"only blank lines", "\n\r\n  \n", nil},
		{"no resources found", "No resources found\n", nil},
		{"garbage table", "NAME STATUS ROLES\ndemo-control-1 Ready control-plane\n", nil},
		{"partial garbage", "node/a\nerror: something\nnode/b\n", nil},
		{"line with spaces", "node/a b\n", nil},
		{"three fields", "a v1.28.4 Ready\n", nil},
		{"one bare name", "a\n", nil},
		{"header of custom-columns", "NAME   VERSION\na   v1.28.4\n", nil},
		{"invalid name before a version", "A_b v1.28.4\n", nil},
		{"upper case", "node/Demo-Control-1\n", nil},
		{"other kind", "pod/a\n", nil},
		{"empty name", "node/\n", nil},
		{"leading dash", "node/-a\n", nil},
		{"trailing dot", "node/a.\n", nil},
		{"underscore", "node/a_b\n", nil},
		{"path traversal", "node/../etc\n", nil},
		{"non-ascii", "node/nöde\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNodes([]byte(tt.out), 1000)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("ParseNodes() = %q, want an error", got)
				}
				if got != nil {
					t.Errorf("ParseNodes() returned %q with its error, want no list", got)
				}
				if r := Reason(err); r != "bad_output" {
					t.Errorf("Reason(%v) = %q, want bad_output", err, r)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseNodes() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, collector.NodeNames(got)); diff != "" {
				t.Errorf("ParseNodes() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReasonOfForeignErrors(t *testing.T) {
	if r := Reason(nil); r != "" {
		t.Errorf("Reason(nil) = %q, want empty", r)
	}
	if r := Reason(errors.ErrUnsupported); r != "other" {
		t.Errorf("Reason(foreign) = %q, want other", r)
	}
	for _, r := range Reasons() {
		if r == "" || strings.ToLower(r) != r {
			t.Errorf("Reasons() holds %q, want lower-case labels", r)
		}
	}
}
