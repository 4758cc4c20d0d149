package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// webhook is an Alertmanager webhook payload as the exporter received it.
type webhook struct {
	at       time.Time
	Receiver string `json:"receiver"`
	Status   string `json:"status"`
	Alerts   []struct {
		Status      string            `json:"status"`
		Labels      map[string]string `json:"labels"`
		StartsAt    time.Time         `json:"startsAt"`
		Fingerprint string            `json:"fingerprint"`
	} `json:"alerts"`
}

// tap is the exporter's listener with a copy of what arrives on it read as HTTP requests, so
// that the test sees the webhooks Alertmanager really sent to the exporter's real address: the
// exporter's own metrics count payloads but not whether they were firing or resolved.
type tap struct {
	net.Listener
	mu       sync.Mutex
	webhooks []webhook
}

func (l *tap) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	go l.read(r)
	return &tapConn{Conn: c, copy: w}, nil
}

// read records the webhooks among the requests of one connection. It always drains r, so that
// the connection never waits for it.
func (l *tap) read(r *io.PipeReader) {
	defer func() { _, _ = io.Copy(io.Discard, r) }()
	br := bufio.NewReader(r)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		if req.Method != http.MethodPost || req.URL.Path != webhookPath {
			continue
		}
		w := webhook{at: time.Now()}
		if json.Unmarshal(body, &w) != nil {
			continue // the exporter answers 400; the test only looks at valid payloads
		}
		l.mu.Lock()
		l.webhooks = append(l.webhooks, w)
		l.mu.Unlock()
	}
}

// received returns the webhooks so far.
func (l *tap) received() []webhook {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]webhook(nil), l.webhooks...)
}

type tapConn struct {
	net.Conn
	copy *io.PipeWriter
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		_, _ = c.copy.Write(b[:n])
	}
	// An error here may be a deadline the server sets to stop a background read, after which
	// it reads on: the copy ends only when the connection is closed.
	return n, err
}

func (c *tapConn) Close() error {
	_ = c.copy.Close()
	return c.Conn.Close()
}

// TestTap: the tap sees every webhook of a keep-alive connection, also after the server has
// stopped a background read with a deadline.
func TestTap(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{Listener: l}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
	go func() { _ = srv.Serve(tp) }()
	t.Cleanup(func() { _ = srv.Close() })
	for _, status := range []string{"firing", "firing", "resolved"} {
		resp, err := client.Post("http://"+l.Addr().String()+webhookPath, "application/json",
			strings.NewReader(`{"receiver":"r","status":"`+status+`","alerts":[{"status":"`+status+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if _, err := client.Get("http://" + l.Addr().String() + "/metrics"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 5*time.Second, "three webhooks", func() (bool, string) {
		var got []string
		for _, w := range tp.received() {
			got = append(got, w.Status)
		}
		return strings.Join(got, " ") == "firing firing resolved", strings.Join(got, " ")
	})
}
