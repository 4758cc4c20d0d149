package exporter

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// testLimits are the HTTP limits of these tests: small, so that they are reached at once.
var testLimits = httpLimits{
	ReadTimeout: time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second,
	MaxHeaderBytes: 4 << 10, MaxBody: 1 << 10, MaxConnections: 8,
}

// dripper sends the headers of a POST to addr and then its body one byte at a time, reconnecting
// whenever the server cuts it off, until stop is closed; it counts the cuts.
func dripper(addr string, stop <-chan struct{}, cut *atomic.Int64) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			continue
		}
		closed := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, c); close(closed) }()
		_, err = fmt.Fprintf(c, "POST /-/healthy HTTP/1.1\r\nHost: %s\r\nContent-Length: 100000\r\n\r\n", addr)
		for err == nil {
			select {
			case <-stop:
				_ = c.Close()
				return
			case <-closed:
				err = io.EOF
				cut.Add(1)
			case <-time.After(20 * time.Millisecond): // the attacker's pace
				_, err = c.Write([]byte("x"))
			}
		}
		_ = c.Close()
	}
}

// TestDrippingBodies: clients that send the headers of a POST and then its body one byte at a
// time. Alone, one is cut off after ReadTimeout. Many, reconnecting whenever they are cut off
// (once 20,000 took every file descriptor), hold at most MaxConnections connections: each new
// one past the limit closes the oldest, so /-/healthy still answers, long before any read
// timeout. Waiting for a free place instead queued it behind every dripping client.
func TestDrippingBodies(t *testing.T) {
	for _, tc := range []struct {
		name        string
		readTimeout time.Duration
		clients     int
	}{
		{name: "one, cut by the read timeout", readTimeout: time.Second, clients: 1},
		{name: "many, the oldest closed past the limit", readTimeout: time.Hour, clients: 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig("  interval: 1h\n", "")
			limits := testLimits
			limits.ReadTimeout = tc.readTimeout
			e.prepare = func(exp *Exporter) { exp.httpLimits = limits }
			e.start()
			e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })

			var (
				stop    = make(chan struct{})
				wg      sync.WaitGroup
				cut     atomic.Int64
				maxOpen atomic.Int64
			)
			sample := func() {
				maxOpen.Store(max(maxOpen.Load(), int64(testutil.ToFloat64(e.exp.conns.open))))
			}
			for range tc.clients {
				wg.Add(1)
				go func() { defer wg.Done(); dripper(strings.TrimPrefix(e.url, "http://"), stop, &cut) }()
			}
			defer func() { close(stop); wg.Wait() }()

			e.waitFor("dripping clients cut off", func() bool { sample(); return cut.Load() >= int64(tc.clients) })
			// A connection that has sent a whole request is never closed for another
			// (TestConnTableClosesNoWholeRequest). Between its accept and the server's goroutine
			// reading its request, though, a new connection looks like any other that has sent
			// nothing yet: clients that reconnect as fast as they are closed can take its place in
			// that instant, and under load they did in about one connection in five. No policy
			// of a bounded table can promise one connection its place against them; what holds is
			// that the exporter goes on answering, as Prometheus sees it at its next scrape. So a
			// new connection is tried until one is answered, each closed one counted.
			client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			attempts, status := 0, 0
			e.waitFor("/-/healthy to answer among dripping clients", func() bool {
				attempts++
				resp, err := client.Get(e.url + "/-/healthy")
				if err != nil {
					return false // closed before the request was read
				}
				resp.Body.Close()
				status = resp.StatusCode
				return true
			})
			t.Logf("/-/healthy answered at attempt %d", attempts)
			if status != http.StatusOK {
				t.Fatalf("/-/healthy among dripping clients: %d", status)
			}
			sample()
			if m := maxOpen.Load(); m > int64(limits.MaxConnections) {
				t.Fatalf("%d connections open at once, limit %d", m, limits.MaxConnections)
			}
			if tc.clients > limits.MaxConnections && testutil.ToFloat64(e.exp.conns.evicted) == 0 {
				t.Fatal("the connection limit was never reached")
			}
		})
	}
}

// TestRequestLimits: a POST body over MaxBody is refused before a handler runs, a handler that
// reads a body without a length cannot read past MaxBody, and headers over MaxHeaderBytes are
// refused.
func TestRequestLimits(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.prepare = func(exp *Exporter) { exp.httpLimits = testLimits }
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })

	big := strings.Repeat("x", 2<<10)
	if code, _ := postBody(t, e.url+"/-/check", big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /-/check with a 2 KiB body: %d, want 413", code)
	}
	req, err := http.NewRequest("GET", e.url+"/-/healthy", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Padding", strings.Repeat("x", 16<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers: %d, want 431", resp.StatusCode)
	}

	// A chunked body has no length to refuse up front: the handler's reads stop at the cap.
	var readErr error
	srv := &http.Server{Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, readErr = io.ReadAll(r.Body)
	})}
	testLimits.apply(srv)
	rec := httptest.NewRecorder()
	chunked := httptest.NewRequest("POST", "/alertmanager/webhook", bufio.NewReader(strings.NewReader(big)))
	chunked.ContentLength = -1
	srv.Handler.ServeHTTP(rec, chunked)
	var tooLarge *http.MaxBytesError
	if !errors.As(readErr, &tooLarge) {
		t.Errorf("reading a 2 KiB chunked body: %v, want the body cap", readErr)
	}
}
