package exporter

import (
	"container/list"
	"net"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// connMetrics count the HTTP server's connections.
type connMetrics struct {
	open    prometheus.Gauge
	evicted prometheus.Counter
}

func newConnMetrics() connMetrics {
	return connMetrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cks_drift_http_connections",
			Help: "HTTP connections open now.",
		}),
		evicted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_http_connection_limit_reached_total",
			Help: "Times a new HTTP connection found the connection limit reached; the oldest open connection was closed to make room.",
		}),
	}
}

// connTable keeps at most max connections open across the listeners that share it. A new
// connection past the limit closes the oldest one instead of waiting for a free place: requests
// of Prometheus, a browser or Alertmanager take milliseconds, while clients that hold connections
// open (dripping a body, idling) are the oldest. Waiting instead would queue /-/healthy behind
// every held connection until its read timeout.
type connTable struct {
	max int
	m   connMetrics

	mu   sync.Mutex
	open list.List // of *limitedConn, oldest first
}

func newConnTable(max int, m connMetrics) *connTable {
	return &connTable{max: max, m: m}
}

// listener wraps l so that its connections count against the table.
func (t *connTable) listener(l net.Listener) net.Listener { return &limitedListener{Listener: l, t: t} }

// add records c and returns the connection to close to make room for it, or nil.
func (t *connTable) add(c *limitedConn) (evict *limitedConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open.Len() >= max(t.max, 1) {
		evict = t.open.Remove(t.open.Front()).(*limitedConn)
		evict.elem = nil
		t.m.evicted.Inc()
	}
	c.elem = t.open.PushBack(c)
	t.m.open.Set(float64(t.open.Len()))
	return evict
}

func (t *connTable) remove(c *limitedConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.elem != nil {
		t.open.Remove(c.elem)
		c.elem = nil
	}
	t.m.open.Set(float64(t.open.Len()))
}

type limitedListener struct {
	net.Listener
	t *connTable
}

func (l *limitedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, t: l.t}
	if evict := l.t.add(lc); evict != nil {
		_ = evict.Close()
	}
	return lc, nil
}

type limitedConn struct {
	net.Conn
	t    *connTable
	elem *list.Element // guarded by t.mu; nil once removed
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.t.remove(c) })
	return err
}
