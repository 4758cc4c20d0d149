package ssh

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// A tenant is root on its cluster's control node: sshd, the kubectl it runs and what they write
// are the tenant's. These tests play such a node with the fake (a real SSH stack) and check that
// the lister bounds each attack by bytes or by ssh.timeout, labels it, and returns no nodes.

// TestStderrFloodEndsTheCommand: a command that writes to stderr without end is ended as one
// that floods stdout is (output_too_large), once maxStderr is passed, not after ssh.timeout.
func TestStderrFloodEndsTheCommand(t *testing.T) {
	f := newFixture(t)
	f.srv.SetMode(sshtest.FloodStderr)
	// Long enough for any machine to read the bound: were stderr read on until the timeout,
	// as before, the reason would be timeout.
	l := f.lister(t, func(o *Options) { o.Timeout = 30 * time.Second })
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, reasonOutputTooLarge)
	// What the node got out before the connection closed: the bound, and what the SSH channel's
	// window and the sockets' buffers held.
	if got := f.srv.HostileBytes(); got > 16<<20 {
		t.Errorf("the node wrote %d MiB to stderr, want little more than the %d MiB bound", got>>20, maxStderr>>20)
	}
}

// TestHostileControlNode: attacks that the lister already bounded; each is labelled and returns
// no nodes, or (server-opened channels) changes nothing.
func TestHostileControlNode(t *testing.T) {
	for _, tc := range []struct {
		mode   sshtest.Mode
		reason string
	}{
		// A node list dripped a byte at a time never ends: the timeout ends it.
		{sshtest.Drip, reasonTimeout},
		// Lines before the version line, without end: the ssh package reads at most 255 bytes
		// of them, long before the timeout.
		{sshtest.EndlessBanner, reasonHandshake},
		// Only keyboard-interactive: the lister offers its key and nothing else, so there are
		// no prompts to answer, and the node learns nothing.
		{sshtest.KeyboardInteractiveOnly, reasonAuth},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetMode(tc.mode)
			timeout := time.Hour
			if tc.reason == reasonTimeout {
				timeout = 300 * time.Millisecond
			}
			nodes, err := f.nodes(t, f.lister(t, func(o *Options) { o.Timeout = timeout }))
			wantReason(t, nodes, err, tc.reason)
			if n := f.srv.KeyboardInteractive(); n != 0 {
				t.Errorf("the lister tried keyboard-interactive %d times", n)
			}
		})
	}

	t.Run("server-opened channels", func(t *testing.T) {
		// Forwarded ports, X11, an agent, a session opened by the node towards the exporter:
		// every one is rejected, and the node list is read as usual.
		f := newFixture(t)
		f.srv.SetMode(sshtest.OpenChannels)
		nodes, err := f.nodes(t, f.lister(t, nil))
		if err != nil || len(nodes) != 2 {
			t.Fatalf("Nodes = %v, %v, want the two nodes", nodes, err)
		}
		if err := waitChannels(t, f.srv, 50); err != nil {
			t.Fatal(err)
		}
		if accepted, _ := f.srv.Channels(); accepted != 0 {
			t.Errorf("the lister accepted %d channels opened by the node", accepted)
		}
	})
}

// waitChannels waits until the server's n channel openings have been answered.
func waitChannels(t *testing.T, srv *sshtest.Server, n int) error {
	t.Helper()
	ctx := waitCtx(t)
	for {
		if a, r := srv.Channels(); a+r >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			a, r := srv.Channels()
			t.Fatalf("the node's %d channel openings were answered %d times", n, a+r)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
