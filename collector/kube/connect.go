package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// errDropped marks a connection that the node closed before it sent a single byte: sshd does
// that when more unauthenticated connections wait than its MaxStartups allows, which the
// default check.concurrency can exceed when many clusters share one address.
var errDropped = errors.New("connection dropped before the ssh handshake")

// retryJitter is the wait before a dropped connection is tried again: random, so that the
// connections sshd dropped together do not come back together.
func retryJitter() time.Duration {
	return 100*time.Millisecond + rand.N(900*time.Millisecond)
}

// connect dials addr and completes the SSH handshake and authentication. The connection's own
// deadline is a backstop a little after ctx's deadline; ctx ending is what interrupts.
func (l *Lister) connect(ctx context.Context, deadline time.Time, clusterID, addr, user string) (*ssh.Client, net.Conn, error) {
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

	rejected := &verdict{}
	hostKeyAlgos := l.hostKeyAlgorithmsFor(clusterID, addr, conn.RemoteAddr())
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
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
		return ssh.NewClient(sc, chans, reqs), conn, nil
	}
	_ = conn.Close()
	switch {
	case rejected.get() != nil:
		return nil, nil, fmt.Errorf("handshake: %w", rejected.get())
	case ctx.Err() != nil:
		return nil, nil, fail(ctx, deadline, reasonHandshake, "handshake", err)
	case conn.read.Load() == 0 && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		return nil, nil, withDetail(reasonHandshake, "the node closed the connection before the ssh handshake (sshd MaxStartups, or sshd down)",
			fmt.Errorf("handshake: %w: %w", errDropped, err))
	case authFailed(err):
		return nil, nil, withDetail(reasonAuth, fmt.Sprintf("user %s: key %s refused", user, l.keyName),
			fmt.Errorf("handshake: %w", err))
	case hostKeyAlgos != nil && noCommonHostKey(err):
		return nil, nil, withDetail(reasonHostKeyChanged, fmt.Sprintf("the node no longer offers a host key of the types it is known by (%v)", hostKeyAlgos),
			fmt.Errorf("handshake: %w", err))
	}
	return nil, nil, fail(ctx, deadline, reasonHandshake, "handshake", err)
}

// countingConn counts the bytes read, to tell a dropped connection from a failed handshake.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}
