package kubetest

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"golang.org/x/net/http2"
)

// Flood is what a FrameServer does to a client that speaks HTTP/2 with it.
type Flood int

const (
	// GoAway answers every request with a GOAWAY that refuses it, then closes the connection:
	// the request may be retried on a new one, which gets the same.
	GoAway Flood = iota
	// Pings sends PING frames without end, each of which the client must answer.
	Pings
	// Settings sends SETTINGS frames without end, each of which the client must acknowledge.
	Settings
)

func (f Flood) String() string {
	switch f {
	case GoAway:
		return "goaway"
	case Pings:
		return "pings"
	case Settings:
		return "settings"
	}
	return "unknown"
}

// FrameServer is a hostile API server on loopback that offers HTTP/2 and HTTP/1.1 in its TLS
// handshake and lets the client choose. To a client that chooses HTTP/2 it does what its Flood
// says; to one that chooses HTTP/1.1 it can only read the request and drop the connection
// unanswered. It never answers a node list. It counts handshakes, the protocol of each and the
// requests it read.
type FrameServer struct {
	ln    net.Listener
	ca    *authority
	flood Flood
	wg    sync.WaitGroup

	mu        sync.Mutex
	protocols []string // the protocol negotiated in each handshake ("" when none was)
	requests  int
	conns     map[net.Conn]bool
}

// NewFrameServer starts a FrameServer on 127.0.0.1 with a new CA.
func NewFrameServer(flood Flood) (*FrameServer, error) {
	ca, serving, err := newServing()
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{serving},
		NextProtos:   []string{http2.NextProtoTLS, "http/1.1"},
		MinVersion:   tls.VersionTLS12,
	})
	if err != nil {
		return nil, err
	}
	s := &FrameServer{ln: ln, ca: ca, flood: flood, conns: make(map[net.Conn]bool)}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// StartFrameServer starts a FrameServer for the test, closed when it ends, and returns it with a
// kubeconfig for it.
func StartFrameServer(t testing.TB, flood Flood) (*FrameServer, []byte) {
	t.Helper()
	fs, err := NewFrameServer(flood)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	conf, err := fs.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	return fs, conf
}

// URL is the server's address, https://127.0.0.1:PORT.
func (s *FrameServer) URL() string { return "https://" + s.ln.Addr().String() }

// Kubeconfig returns a kubeconfig for the server with a token (which it never checks).
func (s *FrameServer) Kubeconfig() ([]byte, error) {
	return KubeconfigFor(s.URL(), s.ca.certPEM, Credential{Token: "kubetest-frames"})
}

// Protocols returns the protocol negotiated in each TLS handshake so far, in order.
func (s *FrameServer) Protocols() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.protocols...)
}

// Requests returns how many requests the server read, over either protocol.
func (s *FrameServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Close stops the server and ends its connections.
func (s *FrameServer) Close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *FrameServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				_ = c.Close()
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
			s.serve(c.(*tls.Conn))
		}()
	}
}

func (s *FrameServer) serve(c *tls.Conn) {
	if err := c.Handshake(); err != nil {
		return
	}
	proto := c.ConnectionState().NegotiatedProtocol
	s.mu.Lock()
	s.protocols = append(s.protocols, proto)
	s.mu.Unlock()
	if proto != http2.NextProtoTLS {
		// HTTP/1.1: read the request and drop the connection, a lost connection to the client.
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			s.count()
		}
		return
	}
	s.serveHTTP2(c)
}

func (s *FrameServer) count() {
	s.mu.Lock()
	s.requests++
	s.mu.Unlock()
}

// serveHTTP2 reads the client's preface and plays the flood until the client goes.
func (s *FrameServer) serveHTTP2(c net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		return
	}
	switch s.flood {
	case Pings, Settings:
		go func() { // read what the client sends (its acknowledgements, its request)
			for {
				f, err := fr.ReadFrame()
				if err != nil {
					_ = c.Close()
					return
				}
				if _, ok := f.(*http2.HeadersFrame); ok {
					s.count()
				}
			}
		}()
		var data [8]byte
		for err := error(nil); err == nil; {
			if s.flood == Pings {
				err = fr.WritePing(false, data)
			} else {
				err = fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100})
			}
		}
	case GoAway:
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*http2.HeadersFrame); ok {
				s.count()
				// The request's stream is above the last one processed: refused, and safe to retry.
				_ = fr.WriteGoAway(h.StreamID-1, http2.ErrCodeNo, nil)
				return
			}
		}
	}
}
