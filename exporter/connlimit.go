package exporter

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
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
			Help: "Times a new HTTP connection found the connection limit reached; the oldest connection without a whole request was closed to make room, or the new one when every open connection was serving a whole request.",
		}),
	}
}

// connTable keeps at most max connections open across the listeners that share it. A new
// connection past the limit closes an old one instead of waiting for a free place: requests of
// Prometheus, a browser or Alertmanager take milliseconds, while clients that hold connections
// open (dripping a body, idling) are the oldest. Waiting instead would queue /-/healthy behind
// every held connection until its read timeout.
//
// A connection that has sent a whole request is never closed for another: its answer is on the
// way. Once, 32 clients dripping bodies and reconnecting in a loop closed the connection of a
// /-/healthy request whose headers had arrived, when it happened to be the oldest. So the one
// closed is the oldest of those that have sent part of a request (a slow or dripping client),
// else the oldest that has sent nothing yet or idles between requests; when every connection is
// serving a whole request, the new connection is closed instead.
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

// add records c and returns the connection to close to make room for it (c itself when no
// other may be closed), or nil.
func (t *connTable) add(c *limitedConn) (evict *limitedConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open.Len() >= max(t.max, 1) {
		t.m.evicted.Inc()
		e := t.victim()
		if e == nil {
			return c
		}
		evict = t.open.Remove(e).(*limitedConn)
		evict.elem = nil
	}
	c.elem = t.open.PushBack(c)
	t.m.open.Set(float64(t.open.Len()))
	return evict
}

// victim is the connection to close for a new one: the oldest with part of a request, else the
// oldest without a whole request, else nil. t.mu is held.
func (t *connTable) victim() *list.Element {
	var idle *list.Element
	for e := t.open.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		switch {
		case c.serving:
		case c.reading:
			return e
		case idle == nil:
			idle = e
		}
	}
	return idle
}

// track follows srv's connections: which are reading a request and which serve a whole one.
// The handler marks a request whole when it has no body or its body has been read to the end;
// the connection is reading from its first byte until then, and neither once it idles again.
func (t *connTable) track(srv *http.Server) {
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if lc := unwrapConn(c); lc != nil {
			return context.WithValue(ctx, connKey{}, lc)
		}
		return ctx
	}
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		if lc := unwrapConn(c); lc != nil {
			t.mu.Lock()
			lc.reading = state == http.StateActive && !lc.serving
			lc.serving = lc.serving && state == http.StateActive
			t.mu.Unlock()
		}
	}
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lc, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
			if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
				t.serving(lc)
			} else {
				r.Body = &wholeBody{ReadCloser: r.Body, done: func() { t.serving(lc) }}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// serving marks c as serving a whole request.
func (t *connTable) serving(c *limitedConn) {
	t.mu.Lock()
	c.serving, c.reading = true, false
	t.mu.Unlock()
}

type connKey struct{}

// unwrapConn finds the table's connection under TLS.
func unwrapConn(c net.Conn) *limitedConn {
	for c != nil {
		switch v := c.(type) {
		case *limitedConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// wholeBody calls done once its body has been read to the end.
type wholeBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *wholeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.once.Do(b.done)
	}
	return n, err
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
	once sync.Once

	// guarded by t.mu
	elem    *list.Element // nil once removed
	reading bool          // part of a request has arrived
	serving bool          // a whole request has arrived and is being answered
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.t.remove(c) })
	return err
}
