package ssh

import (
	"fmt"
	"strings"
	"testing"
)

// TestTooManyNodes: a node list longer than the limit (a hostile or broken control node) is not
// a node list: reason too_many_nodes, no names kept.
func TestTooManyNodes(t *testing.T) {
	f := newFixture(t)
	names := make([]string, 20000)
	for i := range names {
		names[i] = fmt.Sprintf("hostile-node-%05d", i)
	}
	f.srv.SetNodes(names...)
	nodes, err := f.nodes(t, f.lister(t, nil))
	wantReason(t, nodes, err, "too_many_nodes")
	if d := Detail(err); !strings.Contains(d, "more than 1000 nodes") {
		t.Errorf("Detail() = %q, want the limit named", d)
	}

	f.srv.SetNodes(names[:1000]...)
	if nodes, err := f.nodes(t, f.lister(t, nil)); err != nil || len(nodes) != 1000 {
		t.Fatalf("Nodes() = %d names, %v; want exactly 1000 accepted", len(nodes), err)
	}
}

func TestParseNodesLimit(t *testing.T) {
	tests := []struct {
		name   string
		out    string
		max    int
		reason string
	}{
		{"at the limit", "node/a\nnode/b\n", 2, ""},
		{"over the limit", "node/a\nnode/b\nnode/c\n", 2, "too_many_nodes"},
		// Duplicated lines count: the bound is on the work, not on the distinct names.
		{"repeated lines", strings.Repeat("node/a\n", 3), 2, "too_many_nodes"},
		{"bad line first", "junk\nnode/a\nnode/b\nnode/c\n", 2, "bad_output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNodes([]byte(tt.out), tt.max)
			if got := Reason(err); got != tt.reason {
				t.Errorf("Reason() = %q (%v), want %q", got, err, tt.reason)
			}
		})
	}
}
