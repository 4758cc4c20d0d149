package ssh

import (
	"strings"
	"syscall"
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

// TestRekeyFloodEndsTheSession: a node that asks for a new key exchange after every 256 bytes it
// prints, and prints node lines without end, is ended as bad_output after maxKeyExchanges
// exchanges, long before ssh.timeout, having got little out. (Every exchange was answered:
// the session ran on to the output cap or the timeout, about 1.3 s of the exporter's CPU for a
// 5 s timeout.) It logs the time, the bytes and the CPU the session took, both ends together.
func TestRekeyFloodEndsTheSession(t *testing.T) {
	f := newFixture(t)
	f.srv.SetMode(sshtest.RekeyFlood)
	l := f.lister(t, func(o *Options) { o.Timeout = 30 * time.Second })
	cpu0, start := cpuTime(t), time.Now()
	nodes, err := f.nodes(t, l)
	took, cpu := time.Since(start), cpuTime(t)-cpu0
	wantReason(t, nodes, err, reasonBadOutput)
	if d := Detail(err); !strings.Contains(d, "key exchanges") {
		t.Errorf("Detail = %q, want it to name the key exchanges", d)
	}
	// What the node got out between the exchanges it was granted (they come 256 bytes apart,
	// and the node writes on while the next one is under way): far below the output cap of
	// 4 MiB that ended the session before.
	got := f.srv.HostileBytes()
	if got > 1<<20 {
		t.Errorf("the node printed %d KiB, want little: the session ends after %d key exchanges", got>>10, maxKeyExchanges)
	}
	t.Logf("session ended after %v, %d bytes printed, %v of CPU (exporter and fake node)", took, got, cpu)
}

// cpuTime is the CPU time the test process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
