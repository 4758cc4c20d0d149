package exporter

import (
	"log/slog"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// firstPinMsg is the INFO line of a host key pinned on first contact.
const firstPinMsg = "Pinned the SSH host key of a control node on first contact"

// withoutFirstPins drops the first-pin lines: a trust decision logged once per control node,
// not a sign that something is wrong, so the "nothing at info while everything matches" checks
// leave it out.
func withoutFirstPins(lines []logLine) []logLine {
	var out []logLine
	for _, l := range lines {
		if l.Msg != firstPinMsg {
			out = append(out, l)
		}
	}
	return out
}

// TestFirstPinLoggedAtInfo: the first contact with each control node logs, once and at info
// level, which host key was trusted, with the fingerprint an operator compares with
// ssh-keygen -lf on the node.
func TestFirstPinLoggedAtInfo(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha"}, simulator.ClusterSpec{Name: "beta"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(3)
	pinned := map[string]string{}
	for _, l := range e.logs.since(0, slog.LevelInfo) {
		if l.Msg != firstPinMsg {
			continue
		}
		if _, twice := pinned[l.Attrs["cluster_id"]]; twice {
			t.Errorf("cluster %s pinned twice", l.Attrs["cluster_id"])
		}
		pinned[l.Attrs["cluster_id"]] = l.Attrs["fingerprint"]
	}
	for _, c := range cs {
		want := ssh.FingerprintSHA256(e.sim.Node(c.ID).HostKey())
		if pinned[c.ID] != want {
			t.Errorf("cluster %s: first pin logged with fingerprint %q, want %q", c.ID, pinned[c.ID], want)
		}
	}
}
