package exporter

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestKubectlFaults: every way kubectl can fail makes the cluster unreachable with a reason
// counted in the metrics and logged once, never a node finding; a changed host key is refused.
func TestKubectlFaults(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(2)
	node := e.sim.Node(cs[0].ID)
	for _, tc := range []struct {
		mode   sshtest.Mode
		reason string
	}{
		{sshtest.Refuse, "handshake"},
		{sshtest.FailCommand, "exit_status"},
		{sshtest.Garbage, "bad_output"},
		{sshtest.Huge, "output_too_large"},
	} {
		mark := e.logs.mark()
		node.SetMode(tc.mode)
		metric := `cks_drift_kubectl_failures_total{reason="` + tc.reason + `"}`
		before := e.metrics()[metric]
		e.waitFor(tc.reason, func() bool { return e.metrics()[metric] >= before+2 })
		m := e.metrics()
		if r := matching(m, `^cks_drift_kubectl_reachable`); r[keyOf(r)] != 0 {
			t.Fatalf("%s: kubectl_reachable %v", tc.reason, r)
		}
		if f := e.findings(); len(f) != 0 {
			t.Fatalf("%s: findings %v", tc.reason, f)
		}
		warns := e.logs.since(mark, slog.LevelWarn)
		if len(warns) != 1 || warns[0].Attrs["reason"] != tc.reason {
			t.Fatalf("%s: WARN lines %+v", tc.reason, warns)
		}
		node.SetMode(sshtest.Normal)
		e.waitFor("reachable again", func() bool {
			r := matching(e.metrics(), `^cks_drift_kubectl_reachable`)
			return r[keyOf(r)] == 1
		})
	}

	// A re-installed control node: the pinned key no longer matches and the node is refused
	// until the operator clears the pin.
	newKey, _, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	node.SetHostKey(newKey)
	metric := `cks_drift_kubectl_failures_total{reason="host_key_changed"}`
	// Counted from the first refusal on: a cycle under way when the key changed may still have
	// run kubectl over a connection made with the old key.
	e.waitFor("host_key_changed", func() bool { return e.metrics()[metric] >= 1 })
	commands := node.Commands()
	e.waitFor("host_key_changed thrice", func() bool { return e.metrics()[metric] >= 3 })
	if node.Commands() != commands {
		t.Fatal("kubectl ran on a node whose host key changed")
	}
	found := false
	for _, l := range e.logs.since(0, slog.LevelWarn) {
		found = found || (l.Attrs["reason"] == "host_key_changed" && strings.Contains(l.Msg, "Could not list"))
	}
	if !found {
		t.Fatal("the changed host key was not logged")
	}
}

// TestNotifierOffKeepsState: with notifier.enabled false nothing is sent, but the state is kept,
// so turning it on later does not announce the findings already open.
func TestNotifierOffKeepsState(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "  enabled: false\n")
	e.start()
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the finding", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(2)
	e.writeConfig("  interval: 100ms\n", "  enabled: true\n")
	if code := post(t, e.url+"/-/reload"); code != 200 {
		t.Fatalf("reload: %d", code)
	}
	e.nextCycles(3)
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes: %q", w)
	}
}
