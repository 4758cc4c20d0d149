package exporter

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestKubectlDetail: why a node list could not be read is said beyond the reason label, in the
// WARN line and in /findings' kubectl_detail: "API server down" is told apart from other
// exit_status failures by kubectl's own message.
func TestKubectlDetail(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	mark := e.logs.mark()
	e.sim.Node(cs[0].ID).SetMode(sshtest.FailCommand)
	const want = "exit status 1: The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?"
	e.waitFor("kubectl_detail", func() bool {
		r, _ := e.findingsReport()
		return len(r.Clusters) == 1 && r.Clusters[0].NodesDetail == want
	})
	r, raw := e.findingsReport()
	if c := r.Clusters[0]; c.NodesReachable || c.NodesError != "exit_status" || !strings.Contains(raw, `"kubectl_detail": "`+want+`"`) {
		t.Fatalf("/findings cluster %+v\n%s", c, raw)
	}
	warns := e.logs.since(mark, slog.LevelWarn)
	if len(warns) != 1 || warns[0].Attrs["detail"] != want {
		t.Fatalf("WARN lines %+v, want one with detail %q", warns, want)
	}

	e.sim.Node(cs[0].ID).SetMode(sshtest.Normal)
	e.waitFor("reachable again", func() bool {
		r, _ := e.findingsReport()
		return r.Clusters[0].NodesReachable
	})
	if r, raw := e.findingsReport(); r.Clusters[0].NodesDetail != "" || strings.Contains(raw, "kubectl_detail") {
		t.Fatalf("kubectl_detail kept after recovery:\n%s", raw)
	}
}
