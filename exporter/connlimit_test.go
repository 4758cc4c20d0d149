package exporter

import (
	"net"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestConnTableClosesNoWholeRequest: past the limit, the connection closed for a new one is the
// oldest that has sent part of a request, then the oldest that has sent nothing; one serving a
// whole request is never closed, and when every open connection serves one the new one is.
func TestConnTableClosesNoWholeRequest(t *testing.T) {
	t.Parallel()
	table := newConnTable(3, newConnMetrics())
	conn := func() *limitedConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return &limitedConn{Conn: a, t: table}
	}
	serving, fresh, dripping := conn(), conn(), conn()
	for _, c := range []*limitedConn{serving, fresh, dripping} {
		if evict := table.add(c); evict != nil {
			t.Fatal("a connection was closed below the limit")
		}
	}
	table.serving(serving)
	dripping.reading = true

	next := conn()
	if evict := table.add(next); evict != dripping {
		t.Fatalf("closed %p, want the dripping connection %p (serving %p, fresh %p)", evict, dripping, serving, fresh)
	}
	table.serving(next)
	last := conn()
	if evict := table.add(last); evict != fresh {
		t.Fatalf("closed %p, want the connection that sent nothing yet %p", evict, fresh)
	}
	table.serving(last)
	if evict := table.add(conn()); evict == nil || evict == serving || evict == next || evict == last {
		t.Fatalf("closed %p, want the new connection: every open one serves a whole request", evict)
	}
	if got := testutil.ToFloat64(table.m.evicted); got != 3 {
		t.Errorf("cks_drift_http_connection_limit_reached_total %v, want 3", got)
	}
}
