package ssh

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestHandshakeRetry: a connection the node drops before the handshake (sshd past MaxStartups)
// is tried again and counted, up to handshakeTries in all; a node that keeps dropping is reported
// after the last.
func TestHandshakeRetry(t *testing.T) {
	tests := []struct {
		name    string
		drop    int
		reason  string // "" means listed
		retries float64
		conns   int
	}{
		{name: "one drop", drop: 1, retries: 1, conns: 2},
		{name: "two drops", drop: 2, retries: 2, conns: 3},
		{name: "three drops", drop: 3, reason: "handshake", retries: 2, conns: 3},
		{name: "no drop", drop: 0, retries: 0, conns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.srv.DropNext(tt.drop)
			m := NewMetrics()
			l := f.lister(t, func(o *Options) { o.Metrics = m })
			nodes, err := f.nodes(t, l)
			if tt.reason == "" && err != nil {
				t.Fatalf("Nodes() = %v, want the nodes after a retry", err)
			}
			if tt.reason != "" {
				wantReason(t, nodes, err, tt.reason)
			}
			if got := testutil.ToFloat64(m.HandshakeRetries); got != tt.retries {
				t.Errorf("retries = %v, want %v", got, tt.retries)
			}
			if got := f.srv.Connections(); got != tt.conns {
				t.Errorf("server saw %d connections, want %d", got, tt.conns)
			}
		})
	}
}

// TestNoRetryAfterHandshakeStarted: a node that answered and then failed is not retried: only
// a connection closed before a single byte is sshd shedding load.
func TestNoRetryAfterHandshakeStarted(t *testing.T) {
	f := newFixture(t)
	f.srv.SetMode(sshtest.FailCommand)
	m := NewMetrics()
	nodes, err := f.nodes(t, f.lister(t, func(o *Options) { o.Metrics = m }))
	wantReason(t, nodes, err, "exit_status")
	if got := testutil.ToFloat64(m.HandshakeRetries); got != 0 || f.srv.Connections() != 1 {
		t.Errorf("retries = %v, connections = %d; want 0 and 1", got, f.srv.Connections())
	}
}

// TestNoRetryPastTheDeadline: a retry whose wait would leave less than a tenth of ssh.timeout for
// the handshake is not made, so a dropped connection is reported as the drop it is (handshake),
// never as a timeout.
func TestNoRetryPastTheDeadline(t *testing.T) {
	f := newFixture(t)
	f.srv.DropNext(1)
	m := NewMetrics()
	l := f.lister(t, func(o *Options) {
		o.Metrics = m
		o.Jitter = func() time.Duration { return o.Timeout }
	})
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "handshake")
	if got := testutil.ToFloat64(m.HandshakeRetries); got != 0 || f.srv.Connections() != 1 {
		t.Errorf("retries = %v, connections = %d; want 0 and 1", got, f.srv.Connections())
	}
}
