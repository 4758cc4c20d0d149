package exporter

import (
	"encoding/json"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestOnceExitNodesUnread: --once exits 3 when it found no drift but could not read the nodes of
// a checked cluster, 1 when there is drift all the same, and 0 once every node list is read.
func TestOnceExitNodesUnread(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha"}, simulator.ClusterSpec{Name: "beta"})
	e.writeConfig("", "")
	node := e.sim.Node(cs[0].ID)

	node.SetMode(sshtest.FailCommand)
	if code, out := e.once(t, "table"); code != ExitNodesUnread {
		t.Fatalf("one cluster unreachable, no drift: exit %d, want %d; output:\n%s", code, ExitNodesUnread, out)
	}
	code, out := e.once(t, "json")
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if code != ExitNodesUnread || r.FindingCount() != 0 {
		t.Fatalf("json: exit %d, %d findings", code, r.FindingCount())
	}

	restore, err := e.sim.DeleteMapRow(cs[1].ID, cs[1].VMs[2])
	if err != nil {
		t.Fatal(err)
	}
	if code, out := e.once(t, "table"); code != ExitDrift {
		t.Fatalf("drift and an unreachable cluster: exit %d, want %d; output:\n%s", code, ExitDrift, out)
	}

	node.SetMode(sshtest.Normal)
	restore()
	if code, out := e.once(t, "table"); code != ExitClean {
		t.Fatalf("all read, no drift: exit %d, want %d; output:\n%s", code, ExitClean, out)
	}
}
