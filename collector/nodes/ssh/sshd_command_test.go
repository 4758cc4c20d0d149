package ssh

import (
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestRealSSHDSudoNeedsPassword: real sudo for a user without a passwordless rule (the test
// user has no sudoers entry at all, so nothing of the machine's sudo configuration changes):
// exit_status, and the detail says it is sudo asking for a password, not the API server.
func TestRealSSHDSudoNeedsPassword(t *testing.T) {
	sudo := "/usr/bin/sudo"
	n := newRealNode(t, sshtest.ED25519, nil)
	nodes, err := n.nodes(t, n.lister(t, func(o *Options) { o.Command = sudo + " kubectl get nodes -o name" }))
	wantReason(t, nodes, err, "exit_status")
	want := "exit status 1: sudo: a terminal is required to read the password"
	if d := Detail(err); !strings.HasPrefix(d, want) {
		t.Errorf("Detail() = %q, want it to start with %q", d, want)
	}
}

// TestRealSSHDHungKubectl: a kubectl that hangs past the timeout is reported as timeout, and
// nothing of it is left running on the node: sshd signals the command's process group when the
// exporter gives up, and every process of the user ends.
func TestRealSSHDHungKubectl(t *testing.T) {
	n := newRealNode(t, sshtest.ED25519, func(o *sshdtest.Options) { o.Kubectl = sshdtest.KubectlHang })
	nodes, err := n.nodes(t, n.lister(t, func(o *Options) { o.Timeout = 2 * time.Second }))
	wantReason(t, nodes, err, "timeout")
	pids := n.srv.PIDs()
	if len(pids) != 1 {
		t.Fatalf("the hanging kubectl recorded pids %v, want one", pids)
	}
	start := time.Now()
	if err := sshdtest.AwaitExit(pids[0], 10*time.Second); err != nil {
		t.Errorf("kubectl left running on the node: %v", err)
	}
	t.Logf("kubectl gone after %s", time.Since(start))
	if left := sshdtest.AwaitNoProcesses(n.srv.UID(), 10*time.Second); left != "" {
		t.Errorf("processes of the node's user left after the timeout: %s", left)
	}
	t.Logf("all gone after %s", time.Since(start))
}
