package ssh

import (
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestTimeoutSignalsCommand: when the command outlives the timeout, the node is asked to send it
// SIGTERM before the session closes, so that sshd ends it instead of leaving it running.
func TestTimeoutSignalsCommand(t *testing.T) {
	f := newFixture(t)
	f.srv.SetMode(sshtest.HangCommand)
	l := f.lister(t, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "timeout")
	if err := f.srv.WaitSignals(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.Signals(); !slices.Equal(got, []string{"TERM"}) {
		t.Errorf("the node received signals %q, want [TERM]", got)
	}
}
