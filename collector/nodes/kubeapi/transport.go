package kubeapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// The connection to a tenant's API server is the exporter's own, not client-go's default one:
//
//   - HTTP/1.1 only. The TLS handshake offers only "http/1.1" and the transport has no HTTP/2
//     (an empty TLSNextProto). kube-apiserver serves HTTP/1.1 to any client that asks for it,
//     and one GET of a node list gains nothing from multiplexing; HTTP/2 would let the tenant's
//     server send frames the client must answer or act on: a GOAWAY answering every request
//     once made net/http open 6,052 TLS connections in 10 s for one cluster, retrying at once,
//     and PING or SETTINGS floods took about 7 s of CPU per 10 s.
//   - At most maxConns connections per list (connBudget): net/http replays an idempotent GET
//     once on a new connection when a reused one was lost, and nothing else may open more.
//   - Answer headers of at most maxHeaderBytes (net/http's default is 10 MB; 9.9 MB of short
//     headers once cost about 100 MB a cluster).
//
// client-go's own retries are turned off per request (list: MaxRetries(0)).

const (
	// maxConns bounds the connections of one list: one, and one for net/http's replay of a GET
	// whose reused connection was lost. A real API server keeps its connection alive across
	// pages.
	maxConns = 2
	// maxHeaderBytes bounds the headers of one answer. kube-apiserver's are a few hundred bytes
	// (Audit-Id, Content-Type, the priority and fairness uids, a Warning or two).
	maxHeaderBytes = 64 << 10
)

var errTooManyConns = fmt.Errorf("the API server made the client open more than %d connections for one list", maxConns)

// connBudget counts the connections a client opens; reset starts a list's count.
type connBudget struct {
	left   atomic.Int32
	dialer net.Dialer
}

func newConnBudget() *connBudget {
	// client-go's dialer settings; kubernetes_api.timeout bounds a list as a whole.
	b := &connBudget{dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	b.reset()
	return b
}

func (b *connBudget) reset() { b.left.Store(maxConns) }

func (b *connBudget) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if b.left.Add(-1) < 0 {
		return nil, errTooManyConns
	}
	return b.dialer.DialContext(ctx, network, addr)
}

// newTransport returns the transport of rc's server: rc's TLS settings (its CA, its client
// certificate) with HTTP/1.1 only, dialling through conns.
func newTransport(rc *rest.Config, conns *connBudget) (*http.Transport, error) {
	tc, err := rest.TLSConfigFor(rc)
	if err != nil {
		return nil, err
	}
	if tc == nil { // no CA of its own: the system's roots
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tc.NextProtos = []string{"http/1.1"}
	return &http.Transport{
		// Kept from client-go's default transport: an operator's HTTPS_PROXY applies, and a
		// handshake dripped by the server ends after 10 s.
		Proxy:                  http.ProxyFromEnvironment,
		TLSHandshakeTimeout:    10 * time.Second,
		IdleConnTimeout:        90 * time.Second,
		DialContext:            conns.dial,
		TLSClientConfig:        tc,
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		MaxResponseHeaderBytes: maxHeaderBytes,
		MaxIdleConnsPerHost:    1,
	}, nil
}

// headersTooLarge tells whether err is net/http's refusal of headers over MaxResponseHeaderBytes,
// which has no type of its own ("net/http: server response headers exceeded 65536 bytes;
// aborted"); TestHugeHeaders fails should its text change.
func headersTooLarge(err error) bool {
	return err != nil && strings.Contains(err.Error(), "server response headers exceeded")
}

// connectionFailure labels the errors of this file: too many connections is a bad answer,
// headers over the bound are output_too_large; it returns nil for any other error.
func connectionFailure(err error) error {
	switch {
	case errors.Is(err, errTooManyConns):
		return withReason(reasonBadAnswer, err)
	case headersTooLarge(err):
		return withReason(reasonTooLarge, err)
	}
	return nil
}
