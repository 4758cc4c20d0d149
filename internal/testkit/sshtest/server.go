// Package sshtest runs a real SSH server on loopback that plays a CKS control node answering kubectl.
package sshtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// DefaultCommand is the command the exporter runs by default (ssh.kubectl_command). The server
// answers it, and any other kubectl get nodes an operator might configure, as kubectl would
// (parseCommand); other commands as sh or sudo would.
const DefaultCommand = config.DefaultKubectlCommand

// DefaultUser is the user CKS creates on its nodes.
const DefaultUser = "cloud"

// Options configures a Server. Only AuthorizedKey is required: a control node that accepts every
// key would hide authentication bugs in the client.
type Options struct {
	// User is the only user allowed in; empty means DefaultUser.
	User string
	// AuthorizedKey is the only client key accepted.
	AuthorizedKey ssh.PublicKey
	// HostKey is the server's host key; nil generates an ed25519 key.
	HostKey ssh.Signer
	// HandshakeDelay is waited after accepting a connection and before the SSH handshake, to
	// model a slow node in benchmarks and demos.
	HandshakeDelay time.Duration
	// Listener, when set, is served instead of a new one; the Server closes it.
	Listener net.Listener
	// Addr is where to listen when Listener is nil; empty means 127.0.0.1:0.
	Addr string
	// Logger receives debug lines about connections; nil discards them.
	Logger *slog.Logger
}

// Server is a fake control node. Its methods are safe for concurrent use, so a test can change
// the mode or the host key while a client is connected.
type Server struct {
	user       string
	authorized []byte
	delay      time.Duration
	ln         net.Listener
	log        *slog.Logger

	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	mu          sync.Mutex
	closed      bool
	mode        Mode
	nodes       []string
	versions    map[string]string // kubelet version by node name; missing: <none>
	hostKeys    []ssh.Signer
	conns       map[net.Conn]struct{}
	connections int
	sessions    int
	commands    int
	signals     []string
	drop        int           // connections still to close at once, as sshd's MaxStartups does
	slowCommand time.Duration // waited by each command before it answers (SetCommandDelay)
	changed     chan struct{} // closed and replaced whenever commands or signals grow

	hostileBytes        int64 // written by the hostile modes
	acceptedChannels    int   // opened by OpenChannels and accepted by a client
	rejectedChannels    int
	keyboardInteractive int // keyboard-interactive logins tried
}

// NewServer starts a server that accepts connections until Close.
func NewServer(opts Options) (*Server, error) {
	if opts.AuthorizedKey == nil {
		return nil, errors.New("sshtest: no authorized key")
	}
	s := &Server{
		user:       opts.User,
		authorized: opts.AuthorizedKey.Marshal(),
		delay:      opts.HandshakeDelay,
		log:        opts.Logger,
		done:       make(chan struct{}),
		conns:      make(map[net.Conn]struct{}),
		changed:    make(chan struct{}),
	}
	if s.user == "" {
		s.user = DefaultUser
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.hostKeys = []ssh.Signer{opts.HostKey}
	if opts.HostKey == nil {
		signer, _, err := NewKey()
		if err != nil {
			return nil, fmt.Errorf("sshtest: host key: %w", err)
		}
		s.hostKeys[0] = signer
	}
	s.ln = opts.Listener
	if s.ln == nil {
		addr := opts.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("sshtest: listen: %w", err)
		}
		s.ln = ln
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

// Addr returns the listening address as host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Host returns the listening host, for a collector.SSHTarget.
func (s *Server) Host() string {
	host, _, err := net.SplitHostPort(s.Addr())
	if err != nil {
		return s.Addr()
	}
	return host
}

// Port returns the listening port, for a collector.SSHTarget.
func (s *Server) Port() int {
	_, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return 0
	}
	return p
}

// SetNodes sets the node names kubectl prints, in this order: one "<name>   <version>" line each
// for a command with custom columns (SetVersions), else one "node/<name>" line each.
func (s *Server) SetNodes(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes = append([]string(nil), names...)
}

// SetMode changes how later connections and commands are answered.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// SetCommandDelay makes every command started after it wait d before it answers as the mode
// says: a control node that answers, slowly (d just under the client's timeout).
func (s *Server) SetCommandDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slowCommand = d
}

// SetHostKey replaces the host key for later connections, as re-installing a control node does;
// a client that pinned the old key must notice.
func (s *Server) SetHostKey(k ssh.Signer) {
	s.SetHostKeys(k)
}

// SetHostKeys gives later connections several host keys, one per type, as Debian's sshd has
// (RSA, ECDSA and ed25519); a handshake then shows the one the client asks for first.
func (s *Server) SetHostKeys(keys ...ssh.Signer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostKeys = append([]ssh.Signer(nil), keys...)
}

// HostKey returns the public half of the first host key, for known_hosts files and pins.
func (s *Server) HostKey() ssh.PublicKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostKeys[0].PublicKey()
}

// DropNext makes the server close the next n connections right after accepting them, before
// the SSH version line, the way sshd sheds connections past its MaxStartups.
func (s *Server) DropNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop = n
}

// Signals returns the signals clients sent to running commands, in order.
func (s *Server) Signals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.signals...)
}

// Commands returns how many times an authenticated client started kubectl get nodes,
// so that tests can prove a client never ran kubectl (or ran it once).
func (s *Server) Commands() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands
}

// Sessions returns how many SSH session channels authenticated clients opened.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// Connections returns how many TCP connections were accepted, whatever became of them.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// WaitCommands blocks until at least n commands have started or ctx ends, so that a test can
// act while a command hangs without sleeping.
func (s *Server) WaitCommands(ctx context.Context, n int) error {
	return s.waitFor(ctx, n, "commands", func() int { return s.commands })
}

// WaitSignals blocks until clients have sent at least n signals or ctx ends.
func (s *Server) WaitSignals(ctx context.Context, n int) error {
	return s.waitFor(ctx, n, "signals", func() int { return len(s.signals) })
}

// waitFor blocks until count, read under the server's lock, reaches n, ctx ends or the server
// closes.
func (s *Server) waitFor(ctx context.Context, n int, what string, count func() int) error {
	for {
		s.mu.Lock()
		seen, changed := count(), s.changed
		s.mu.Unlock()
		if seen >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("sshtest: wait for %d %s, saw %d: %w", n, what, seen, ctx.Err())
		case <-s.done:
			return errors.New("sshtest: server closed")
		}
	}
}

// Close stops the listener, closes every connection, hanging ones included, and waits for the
// server's goroutines to end.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.done)
		for c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		err = s.ln.Close()
		s.wg.Wait()
	})
	if err != nil {
		return fmt.Errorf("sshtest: close listener: %w", err)
	}
	return nil
}

// acceptLoop hands every accepted connection to its own goroutine until the listener closes.
func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
			default:
				s.log.Debug("sshtest accept failed", "err", err)
			}
			return
		}
		if !s.track(conn) {
			_ = conn.Close()
			return
		}
		s.wg.Add(1)
		go s.serve(conn)
	}
}

// track records a connection so that Close can end it; it refuses once the server is closed.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	s.connections++
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}
