package exporter

// Faults the exporter must survive (the fault matrix of docs/reliability.md): for each one it keeps
// serving /metrics from its last good snapshot, invents no finding, resolves none falsely, loses
// and doubles no announcement, and says what is wrong in one clear log line and a metric.

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestFaultsSSH: faults of the control node's SSH that the other tests do not cover. The
// cluster's kubectl is unreachable with the reason counted and logged once; the node-side
// finding is carried over (the node came back meanwhile, which must not count as resolved until
// kubectl can be read again), no node-side finding is invented; then one resolution.
// It runs alone, not in parallel: its SSH timeout of 300 ms must only be hit by the faults it
// injects.
func TestFaultsSSH(t *testing.T) {
	const interval = "  interval: 100ms\n"
	for _, tc := range []struct {
		name   string
		before func(e *env)
		inject func(e *env, node *sshtest.Server)
		clear  func(e *env, node *sshtest.Server)
		reason string
	}{
		{
			name: "connection refused (nothing listens on the port)",
			inject: func(e *env, _ *sshtest.Server) {
				e.editConfig("ssh:\n", fmt.Sprintf("ssh:\n  port: %d\n", closedPort(e.t)))
				e.postReload()
			},
			clear:  func(e *env, _ *sshtest.Server) { e.writeConfig(interval, ""); e.postReload() },
			reason: "dial",
		},
		{
			name: "authentication failure (the exporter's key is not authorized)",
			inject: func(e *env, _ *sshtest.Server) {
				_, pem, err := sshtest.NewKey()
				if err != nil {
					e.t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(e.dir, "id_ed25519"), pem, 0o600); err != nil {
					e.t.Fatal(err)
				}
				e.postReload()
			},
			clear:  func(e *env, _ *sshtest.Server) { e.writeConfig(interval, ""); e.postReload() },
			reason: "auth",
		},
		{
			name:   "hanging handshake",
			before: func(e *env) { e.editConfig("  timeout: 5s\n", "  timeout: 300ms\n") },
			inject: func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.HangHandshake) },
			clear:  func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.Normal) },
			reason: "timeout",
		},
		{
			name:   "hanging kubectl command",
			before: func(e *env) { e.editConfig("  timeout: 5s\n", "  timeout: 300ms\n") },
			inject: func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.HangCommand) },
			clear:  func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.Normal) },
			reason: "timeout",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			node := e.sim.Node(cs[0].ID)
			e.writeConfig(interval, "")
			if tc.before != nil {
				tc.before(e)
			}
			e.start()
			restart := e.openNodeFinding(cs[0])
			written, mark := len(e.writes()), e.logs.mark()
			metric := `cks_drift_kubectl_failures_total{reason="` + tc.reason + `"}`
			before := e.metrics()[metric]

			tc.inject(e, node)
			// A cycle that began before a reload still runs with the old configuration: start
			// kubelet only once a listing has failed, so that no cycle can see the node come back.
			e.waitFor("a "+tc.reason+" failure", func() bool { return e.metrics()[metric] >= before+1 })
			restart() // the node is back, but kubectl cannot say so
			e.waitFor(tc.reason+" failures", func() bool { return e.metrics()[metric] >= before+2 })
			m := e.metrics()
			if r := matching(m, `^cks_drift_kubectl_reachable\{`); r[keyOf(r)] != 0 || m["cks_drift_up"] != 1 {
				t.Fatalf("kubectl_reachable %v, up %v", r, m["cks_drift_up"])
			}
			if f := e.findings(); len(f) != 1 || !strings.Contains(f[0], "vm_not_a_node") {
				t.Fatalf("the node-side finding is not carried over, or one was invented: %v", f)
			}
			if w := e.writes()[written:]; len(w) != 0 {
				t.Fatalf("announced while kubectl was unreachable: %q", w)
			}
			warns := e.logged(mark, slog.LevelWarn, msgKubectl)
			if len(warns) != 1 || warns[0].Attrs["reason"] != tc.reason {
				t.Fatalf("want one WARN line with reason %s, got %+v", tc.reason, warns)
			}

			mark = e.logs.mark()
			tc.clear(e, node)
			e.waitFor("the resolution", func() bool { return len(e.findings()) == 0 })
			e.nextCycles(2)
			e.oneEpisode(nodeSideAgain)
			if l := e.logged(mark, slog.LevelInfo, "The Kubernetes nodes of the cluster can be listed again"); len(l) != 1 {
				t.Fatalf("recovery logged %d times, want once", len(l))
			}
		})
	}
}
