package ssh

import (
	"context"
	"errors"
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// Reasons are short, stable labels for metrics: they name the stage that failed so that an alert
// can tell "node unreachable" from "node re-installed" from "kubectl broken" without parsing
// error text.
const (
	reasonNoTarget       = "no_target"
	reasonDial           = "dial"
	reasonTimeout        = "timeout"
	reasonHandshake      = "handshake"
	reasonAuth           = "auth"
	reasonHostKeyUnknown = "host_key_unknown"
	reasonHostKeyChanged = "host_key_changed"
	reasonExitStatus     = "exit_status"
	reasonOutputTooLarge = "output_too_large"
	reasonBadOutput      = "bad_output"
	reasonTooManyNodes   = "too_many_nodes"
	reasonOther          = "other"
)

// Reasons returns every label Reason can return, in a fixed order, so that a collector can
// export a zero for each before the first failure.
func Reasons() []string {
	return []string{
		reasonNoTarget, reasonDial, reasonTimeout, reasonHandshake, reasonAuth,
		reasonHostKeyUnknown, reasonHostKeyChanged, reasonExitStatus, reasonOutputTooLarge,
		reasonBadOutput, reasonTooManyNodes, reasonOther,
	}
}

// reasonError tags an error with its label where the failing stage is known, because the ssh
// package's errors are mostly untyped text by the time they come back.
type reasonError struct {
	reason string
	detail string // what an operator needs to act, when the error text says it less well
	err    error
}

func (e *reasonError) Error() string { return e.err.Error() }
func (e *reasonError) Unwrap() error { return e.err }

func withReason(reason string, err error) error {
	return &reasonError{reason: reason, err: err}
}

// withDetail is withReason with an operator's detail, see Detail.
func withDetail(reason, detail string, err error) error {
	return &reasonError{reason: reason, detail: detail, err: err}
}

// Reason returns the metric label for an error from Nodes or ParseNodes, "" for nil. Errors it
// does not know are "other"; a cancelled context is "other" too, since it is the caller's own
// doing (shutdown, reload) and not the control node's fault.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var re *reasonError
	if errors.As(err, &re) {
		return re.reason
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return reasonTimeout
	}
	var exitErr *gossh.ExitError
	if errors.As(err, &exitErr) {
		return reasonExitStatus
	}
	return reasonOther
}
