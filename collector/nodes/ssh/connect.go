package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// errDropped marks a connection that the node closed before it sent its SSH version line: sshd
// does that (after writing "Exceeded MaxStartups") when more unauthenticated connections wait
// than its MaxStartups allows, which the default check.concurrency can exceed when many clusters
// share one address.
var errDropped = errors.New("connection dropped before the ssh handshake")

// retryJitter is the wait before a dropped connection is tried again: random between 10% and
// 60% of the timeout (1 to 6 s with the default 10 s), so that the connections sshd dropped
// together come back spread out, after those it let in have authenticated. sshd re-executes
// itself for each connection, so on a busy node a few dozen handshakes take seconds; shorter
// windows (up to 1 s, then up to 3.5 s) saw second drops in tests against Debian's sshd with 32
// connections at once.
func retryJitter(timeout time.Duration) time.Duration {
	return timeout/10 + rand.N(timeout/2)
}

// connect dials addr and completes the SSH handshake and authentication; rejected records what
// the host key callback refused, for the whole connection. The connection's own deadline is a
// backstop a little after ctx's deadline; ctx ending is what interrupts.
func (l *Lister) connect(ctx context.Context, deadline time.Time, clusterID, addr, user string, rejected *verdict) (*gossh.Client, net.Conn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fail(ctx, deadline, reasonDial, "dial", err)
	}
	conn := &countingConn{Conn: raw}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if err := conn.SetDeadline(deadline.Add(signalGrace)); err != nil {
		_ = conn.Close()
		return nil, nil, fail(ctx, deadline, reasonOther, "set deadline", err)
	}

	hostKeyAlgos := l.hostKeyAlgorithmsFor(clusterID, addr, conn.RemoteAddr())
	sc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{
		User:              user,
		Auth:              l.auth,
		HostKeyCallback:   l.hostKeyCallback(clusterID, addr, rejected),
		HostKeyAlgorithms: hostKeyAlgos,
	})
	if err == nil {
		if !stop() {
			// ctx ended right after the handshake and closed the connection.
			_ = sc.Close()
			return nil, nil, fail(ctx, deadline, reasonOther, "handshake", net.ErrClosed)
		}
		return gossh.NewClient(sc, chans, reqs), conn, nil
	}
	_ = conn.Close()
	switch {
	case rejected.get() != nil:
		return nil, nil, fmt.Errorf("handshake: %w", rejected.get())
	case ctx.Err() != nil:
		return nil, nil, fail(ctx, deadline, reasonHandshake, "handshake", err)
	case !conn.sawVersion() && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		detail := "the node closed the connection before the ssh handshake (sshd down, or its MaxStartups)"
		if said := safetext.Line(conn.said(), 80); said != "" {
			detail = "the node closed the connection before the ssh handshake, saying " + strconv.Quote(said)
		}
		return nil, nil, withDetail(reasonHandshake, detail, fmt.Errorf("handshake: %w: %w", errDropped, err))
	case authFailed(err):
		return nil, nil, withDetail(reasonAuth, fmt.Sprintf("user %s: key %s refused", user, l.keyName),
			fmt.Errorf("handshake: %w", err))
	case hostKeyAlgos != nil && noCommonHostKey(err):
		return nil, nil, withDetail(reasonHostKeyChanged, fmt.Sprintf("the node no longer offers a host key of the types it is known by (%v)", hostKeyAlgos),
			fmt.Errorf("handshake: %w", err))
	}
	return nil, nil, fail(ctx, deadline, reasonHandshake, "handshake", err)
}

// countingConn keeps the first bytes the node sends, to tell a connection dropped before the
// handshake from a failed handshake.
type countingConn struct {
	net.Conn
	mu   sync.Mutex
	head []byte
}

// headLen is enough for a version line and the lines a server may send before it.
const headLen = 512

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if room := headLen - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	c.mu.Unlock()
	return n, err
}

// sawVersion reports whether the node sent the start of an SSH version line.
func (c *countingConn) sawVersion() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.HasPrefix(c.head, []byte("SSH-")) || bytes.Contains(c.head, []byte("\nSSH-"))
}

// said returns what the node sent before it closed the connection.
func (c *countingConn) said() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.head)
}
