package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// stderrCap is how much of kubectl's stderr is kept: enough for its one-line messages.
const stderrCap = 4 << 10

// maxStderr bounds what the command may write to stderr, as maxOutput bounds stdout: the control
// node is the tenant's, and one that wrote to stderr without end once had 896 MiB read and
// thrown away (3 s of CPU) in the 5 s before ssh.timeout. kubectl writes a line or two there.
const maxStderr = 1 << 20

// signalGrace is how long, after the deadline, the connection stays open for telling sshd to
// signal the command; it bounds a node that stops reading.
const signalGrace = 2 * time.Second

// handshakeTries is how many times a connection the node drops before the handshake is tried in
// all (see connect): sshd past its MaxStartups drops at random, so on a loaded node one retry
// can be dropped again (it was, against Debian's sshd with 32 connections at once on a busy
// machine), while each try costs the node only an accepted connection. A retry is made only
// when its wait leaves a tenth of ssh.timeout for the handshake, so a node that keeps dropping
// is reported as dropped (handshake), never as a timeout.
const handshakeTries = 3

// run dials addr (again, up to handshakeTries in all, if the node drops the connection before
// the handshake, see connect), verifies and authenticates, runs the command and returns its
// stdout. ctx carries the deadline for all of it. When ctx ends while the command runs, sshd is
// asked to send SIGTERM to the command's process group and the session is closed, so that a hung
// kubectl does not keep running on the node; the connection is closed, the only way to interrupt
// the ssh package, so nothing outlives the call.
func (l *Lister) run(ctx context.Context, clusterID, addr, user string) ([]byte, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(l.timeout)
	}
	rejected := &verdict{}
	client, conn, err := l.connect(ctx, deadline, clusterID, addr, user, rejected)
	for try := 1; try < handshakeTries && errors.Is(err, errDropped); try++ {
		pause := l.jitter()
		if time.Until(deadline) < pause+l.timeout/10 {
			break // no time left for another handshake: reported as the drop it is
		}
		l.metrics.HandshakeRetries.Inc()
		wait := time.NewTimer(pause)
		select {
		case <-wait.C:
			rejected = &verdict{}
			client, conn, err = l.connect(ctx, deadline, clusterID, addr, user, rejected)
		case <-ctx.Done():
			wait.Stop()
			err = fail(ctx, deadline, reasonHandshake, "wait to retry the handshake", err)
		}
	}
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer client.Close()

	var running atomic.Pointer[gossh.Session]
	stop := context.AfterFunc(ctx, func() {
		if sess := running.Load(); sess != nil {
			_ = conn.SetDeadline(time.Now().Add(signalGrace))
			_ = sess.Signal(gossh.SIGTERM)
			_ = sess.Close()
		}
		_ = conn.Close()
	})
	defer stop()
	out, err := l.exec(ctx, deadline, client, &running)
	if err != nil && rejected.tooManyExchanges() {
		// The refused key exchange closed the connection: the read or wait failed for it.
		return nil, errTooManyKeyExchanges
	}
	return out, err
}

// exec runs the configured command in a new session of client, publishing the session in
// running once it has started.
func (l *Lister) exec(ctx context.Context, deadline time.Time, client *gossh.Client, running *atomic.Pointer[gossh.Session]) ([]byte, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "open session", err)
	}
	defer sess.Close()
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "stdout", err)
	}
	// Past maxStderr the connection is closed, which ends the read of stdout below and the
	// command on the node, as returning early does for stdout.
	stderr := &capped{max: stderrCap, limit: maxStderr, over: func() { _ = client.Close() }}
	sess.Stderr = stderr
	if err := sess.Start(l.command); err != nil {
		return nil, fail(ctx, deadline, reasonOther, "start command", err)
	}
	running.Store(sess)
	if ctx.Err() != nil {
		// ctx ended between Start and Store: the AfterFunc saw no session to signal.
		_ = sess.Signal(gossh.SIGTERM)
	}

	out, err := io.ReadAll(io.LimitReader(stdout, maxOutput+1))
	if stderr.overflowed() {
		return nil, errStderrTooLarge
	}
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "read output", err)
	}
	if int64(len(out)) > maxOutput {
		// Returning closes the session and the connection, which stops the remote writer.
		return nil, withReason(reasonOutputTooLarge,
			fmt.Errorf("command printed more than %d bytes", maxOutput))
	}
	if err := sess.Wait(); err != nil {
		if stderr.overflowed() {
			return nil, errStderrTooLarge
		}
		var exitErr *gossh.ExitError
		if ctx.Err() != nil {
			// Killed by the signal sent when ctx ended: the deadline is the cause, not the node.
			return nil, fail(ctx, deadline, reasonOther, "wait for command", err)
		}
		if errors.As(err, &exitErr) {
			line := firstLine(stderr.kept(), MaxDetail)
			return nil, withDetail(reasonExitStatus, fmt.Sprintf("exit status %d: %s", exitErr.ExitStatus(), line),
				fmt.Errorf("command exited with status %d: %s", exitErr.ExitStatus(), line))
		}
		return nil, fail(ctx, deadline, reasonOther, "wait for command", err)
	}
	return out, nil
}

// fail labels err with reason unless the deadline or ctx explains it better: after a timeout
// the ssh package only sees a closed connection, and "handshake" or "other" would mislead.
func fail(ctx context.Context, deadline time.Time, reason, stage string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return withDetail(reasonTimeout, "no answer within the ssh timeout, "+stage,
				fmt.Errorf("%s: %w: %w", stage, ctxErr, err))
		}
		return withReason(reasonOther, fmt.Errorf("%s: %w: %w", stage, ctxErr, err))
	}
	if !time.Now().Before(deadline) || errors.Is(err, os.ErrDeadlineExceeded) {
		return withDetail(reasonTimeout, "no answer within the ssh timeout, "+stage,
			fmt.Errorf("%s: %w: %w", stage, context.DeadlineExceeded, err))
	}
	return withReason(reason, fmt.Errorf("%s: %w", stage, err))
}

// capped keeps the first max bytes written to it and counts the rest, up to limit: past it,
// it calls over once and fails every write. It is written from the ssh package's goroutine.
type capped struct {
	max   int
	limit int64
	over  func()

	mu      sync.Mutex
	buf     []byte
	written int64
	tooMuch atomic.Bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	c.written += int64(len(p))
	over := c.written > c.limit
	c.mu.Unlock()
	if over {
		if !c.tooMuch.Swap(true) {
			c.over()
		}
		return 0, errStderrTooLarge
	}
	return len(p), nil
}

// overflowed reports whether more than limit bytes were written.
func (c *capped) overflowed() bool { return c.tooMuch.Load() }

// kept returns the first max bytes.
func (c *capped) kept() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf
}

var errStderrTooLarge = withReason(reasonOutputTooLarge, fmt.Errorf("command wrote more than %d bytes to stderr", maxStderr))

// authFailed tells an authentication failure from other handshake errors. The ssh package
// reports it only as text; this wording has been stable since 2012 and a change would only turn
// "auth" into "handshake".
func authFailed(err error) bool {
	return strings.Contains(err.Error(), "unable to authenticate")
}

// noCommonHostKey tells that the node offers none of the host key types asked for: with strict
// or pin, the types of the keys it is known by, so its keys have changed.
func noCommonHostKey(err error) bool {
	return strings.Contains(err.Error(), "no common algorithm for host key")
}
