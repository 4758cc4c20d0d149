package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"
)

// stderrCap is how much of kubectl's stderr is kept: enough for its one-line messages.
const stderrCap = 4 << 10

// excerptLen is how much of stderr goes into an error, which ends up in logs and alerts.
const excerptLen = 200

// run dials addr, verifies and authenticates, runs the command and returns its stdout. ctx
// carries the deadline for all of it; when ctx ends the connection is closed, the only way to
// interrupt the ssh package, so nothing outlives the call.
func (l *Lister) run(ctx context.Context, clusterID, addr, user string) ([]byte, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(l.timeout)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fail(ctx, deadline, reasonDial, "dial", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if err := conn.SetDeadline(deadline); err != nil {
		return nil, fail(ctx, deadline, reasonOther, "set deadline", err)
	}

	rejected := &verdict{}
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(l.signer)},
		HostKeyCallback: l.hostKeyCallback(clusterID, addr, rejected),
	})
	if err != nil {
		if err := rejected.get(); err != nil {
			return nil, fmt.Errorf("handshake: %w", err)
		}
		// The ssh package reports authentication failure only as text; this wording has been
		// stable since 2012 and a change would only turn "auth" into "handshake".
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, withReason(reasonAuth, fmt.Errorf("handshake: %w", err))
		}
		return nil, fail(ctx, deadline, reasonHandshake, "handshake", err)
	}
	client := ssh.NewClient(sc, chans, reqs)
	defer client.Close()

	sess, err := client.NewSession()
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "open session", err)
	}
	defer sess.Close()
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "stdout", err)
	}
	stderr := &capped{max: stderrCap}
	sess.Stderr = stderr
	if err := sess.Start(l.command); err != nil {
		return nil, fail(ctx, deadline, reasonOther, "start command", err)
	}

	out, err := io.ReadAll(io.LimitReader(stdout, l.maxOutput+1))
	if err != nil {
		return nil, fail(ctx, deadline, reasonOther, "read output", err)
	}
	if int64(len(out)) > l.maxOutput {
		// Returning closes the session and the connection, which stops the remote writer.
		return nil, withReason(reasonOutputTooLarge,
			fmt.Errorf("command printed more than %d bytes", l.maxOutput))
	}
	if err := sess.Wait(); err != nil {
		var exitErr *ssh.ExitError
		if errors.As(err, &exitErr) {
			return nil, withReason(reasonExitStatus, fmt.Errorf("command exited with status %d: %s",
				exitErr.ExitStatus(), excerpt(stderr.buf)))
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
			reason = reasonTimeout
		} else {
			reason = reasonOther
		}
		return withReason(reason, fmt.Errorf("%s: %w: %w", stage, ctxErr, err))
	}
	if !time.Now().Before(deadline) || errors.Is(err, os.ErrDeadlineExceeded) {
		return withReason(reasonTimeout, fmt.Errorf("%s: %w: %w", stage, context.DeadlineExceeded, err))
	}
	return withReason(reason, fmt.Errorf("%s: %w", stage, err))
}

// capped keeps the first max bytes written and drops the rest while still accepting it, so the
// remote side never blocks on a stream nobody reads.
type capped struct {
	max int
	buf []byte
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// excerpt turns stderr into one short printable line for an error message.
func excerpt(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, strings.ToValidUTF8(string(b), "?"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "no message on stderr"
	}
	if utf8.RuneCountInString(s) > excerptLen {
		s = string([]rune(s)[:excerptLen]) + "..."
	}
	return s
}
