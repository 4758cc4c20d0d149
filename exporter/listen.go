package exporter

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/mdlayher/vsock"
	"github.com/prometheus/exporter-toolkit/web"
)

// httpLimits bound what one client can hold of the HTTP server.
type httpLimits struct {
	// ReadTimeout bounds reading a whole request, body included: a client dripping its body
	// loses the connection.
	ReadTimeout time.Duration
	// WriteTimeout bounds a whole answer. /metrics is encoded before it is asked for and never
	// waits for a cycle, so only a slow reader of a large exposition comes near it.
	WriteTimeout   time.Duration
	IdleTimeout    time.Duration
	MaxHeaderBytes int
	// MaxBody caps the body of every POST (the webhook may cap lower).
	MaxBody int64
	// MaxConnections bounds the connections open at once, so that a flood of clients cannot take
	// the file descriptors that SSH sessions and the state file need (see connTable).
	MaxConnections int
}

var defaultHTTPLimits = httpLimits{
	ReadTimeout:    30 * time.Second,
	WriteTimeout:   2 * time.Minute,
	IdleTimeout:    2 * time.Minute,
	MaxHeaderBytes: 64 << 10,
	MaxBody:        1 << 20,
	MaxConnections: 512,
}

// apply sets the limits on srv and wraps its handler so that every POST body is capped.
func (l httpLimits) apply(srv *http.Server) {
	srv.ReadHeaderTimeout = min(10*time.Second, l.ReadTimeout)
	srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = l.ReadTimeout, l.WriteTimeout, l.IdleTimeout
	srv.MaxHeaderBytes = l.MaxHeaderBytes
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if r.ContentLength > l.MaxBody {
				http.Error(w, "Request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, l.MaxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// listeners opens what flags name, as exporter-toolkit's ListenAndServe does (systemd sockets,
// vsock:// or TCP addresses), so that each can be wrapped before it is served.
func listeners(flags *web.FlagConfig) ([]net.Listener, error) {
	if flags.WebSystemdSocket != nil && *flags.WebSystemdSocket {
		ls, err := activation.Listeners()
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 {
			return nil, errors.New("no socket activation file descriptors found")
		}
		return ls, nil
	}
	if flags.WebListenAddresses == nil || len(*flags.WebListenAddresses) == 0 {
		return nil, errors.New("no --web.listen-address given")
	}
	var out []net.Listener
	for _, addr := range *flags.WebListenAddresses {
		l, err := listen(addr)
		if err != nil {
			for _, o := range out {
				_ = o.Close()
			}
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func listen(addr string) (net.Listener, error) {
	if !strings.HasPrefix(addr, "vsock://") {
		return net.Listen("tcp", addr)
	}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, err
	}
	_, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil, err
	}
	p, err := strconv.ParseUint(port, 10, 32)
	if err != nil {
		return nil, err
	}
	return vsock.Listen(uint32(p), nil)
}
