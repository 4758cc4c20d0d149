package ssh

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestHandshakeRetry: a connection the node drops before the handshake (sshd past MaxStartups)
// is tried once more and counted; a node that keeps dropping is reported after one retry.
func TestHandshakeRetry(t *testing.T) {
	tests := []struct {
		name    string
		drop    int
		reason  string // "" means listed
		retries float64
		conns   int
	}{
		{name: "one drop", drop: 1, retries: 1, conns: 2},
		{name: "two drops", drop: 2, reason: "handshake", retries: 1, conns: 2},
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
