package exporter

// Faults the exporter must survive (the fault matrix of docs/reliability.md): for each one it keeps
// serving /metrics from its last good snapshot, invents no finding, resolves none falsely, loses
// and doubles no announcement, and says what is wrong in one clear log line and a metric.

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestFaultsInventory: faults that keep the inventory from being read. The cycle fails with
// cks_drift_up 0 and an ERROR line naming the cause; /metrics keeps the last findings, the drift
// undone meanwhile is not taken for resolved and nothing is announced until CloudStack answers
// again; then the resolution is announced exactly once.
func TestFaultsInventory(t *testing.T) {
	t.Parallel()
	const interval = "  interval: 100ms\n"
	for _, tc := range []struct {
		name   string
		inject func(e *env)
		clear  func(e *env)
		errIn  string // in the ERROR line's err
	}{
		{
			name: "API connection refused",
			inject: func(e *env) {
				e.editConfig("endpoint: "+e.sim.CloudStack.Endpoint(), fmt.Sprintf("endpoint: http://127.0.0.1:%d/client/api", closedPort(e.t)))
				e.postReload()
			},
			clear: func(e *env) { e.writeConfig(interval, ""); e.postReload() },
			errIn: "connection refused",
		},
		{
			name:   "429 without Retry-After",
			inject: func(e *env) { e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Status: 429}) },
			clear:  func(e *env) { e.sim.CloudStack.ClearFaults() },
			errIn:  "429",
		},
		{
			// The short timeout is in force only while the fault is: on a loaded machine a healthy
			// answer can take longer than 500ms, and a cycle that failed so outside the fault would
			// be a second failure episode (the fault is cleared before the default comes back, so
			// at most one cycle runs with it after the clear, and the episode still ends once).
			// The fault waits for a cycle to end after the reload: the cycle under way at the
			// reload keeps the default 30s and would wait that long on the slow answer.
			name: "answer slower than cloudstack.timeout",
			inject: func(e *env) {
				e.editConfig("cloudstack:\n", "cloudstack:\n  timeout: 500ms\n")
				e.postReload()
				e.nextCycles(1)
				e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Delay: time.Minute})
			},
			clear: func(e *env) {
				e.sim.CloudStack.ClearFaults()
				e.editConfig("cloudstack:\n  timeout: 500ms\n", "cloudstack:\n")
				e.postReload()
			},
			errIn: "Client.Timeout exceeded",
		},
		{
			name: "401 after a key rotation",
			inject: func(e *env) {
				secret := e.sim.CloudStack.SecretKey()
				e.editConfig("secret_key: "+secret, "secret_key: rotated-"+secret)
				e.postReload()
			},
			clear: func(e *env) { e.writeConfig(interval, ""); e.postReload() },
			errIn: "401",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig(interval, "")
			e.start()
			restore := e.openVMFinding(cs[0])
			written, mark := len(e.writes()), e.logs.mark()
			failures := e.metrics()["cks_drift_cycle_failures_total"]

			tc.inject(e)
			// A cycle that began before a reload still runs with the old configuration: undo the
			// drift only once a cycle has failed, so that no cycle can read the repair.
			e.waitFor("a failing cycle", func() bool { return e.metrics()["cks_drift_cycle_failures_total"] >= failures+1 })
			restore() // undone while CloudStack cannot be read: must not count as resolved
			e.waitFor("failing cycles", func() bool {
				m := e.metrics()
				return m["cks_drift_up"] == 0 && m["cks_drift_cycle_failures_total"] >= failures+2
			})
			if f := e.findings(); len(f) != 1 || !strings.Contains(f[0], "test unmapped_vm "+cs[0].VMs[1]) {
				t.Fatalf("/metrics does not keep the last findings: %v", f)
			}
			if w := e.writes()[written:]; len(w) != 0 {
				t.Fatalf("announced while CloudStack could not be read: %q", w)
			}
			lines := e.logged(mark, slog.LevelError, msgInventory)
			if len(lines) == 0 || !strings.Contains(lines[0].Attrs["err"], tc.errIn) {
				t.Fatalf("no ERROR line naming %q: %+v", tc.errIn, lines)
			}
			if strings.Contains(lines[0].Attrs["err"], e.sim.CloudStack.SecretKey()) || strings.Contains(lines[0].Attrs["err"], "signature=") {
				t.Fatalf("the log line carries a secret: %q", lines[0].Attrs["err"])
			}
			t.Logf("ERROR %s err=%q", lines[0].Msg, lines[0].Attrs["err"])

			tc.clear(e)
			e.waitFor("the resolution", func() bool { return e.metrics()["cks_drift_up"] == 1 && len(e.findings()) == 0 })
			e.nextCycles(2)
			e.oneEpisode(vmSideAgain)
			// The journal does not end on the ERROR: one INFO line says CloudStack is read again.
			again := e.logged(mark, slog.LevelInfo, msgInventoryAgain)
			if len(again) != 1 || again[0].Level != slog.LevelInfo || again[0].Attrs["failed_cycles"] == "" ||
				!strings.Contains(again[0].Attrs["last_err"], tc.errIn) {
				t.Fatalf("want one INFO line %q with the failed cycles and the last error, got %+v", msgInventoryAgain, again)
			}
		})
	}
}
