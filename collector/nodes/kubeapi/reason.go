package kubeapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Reasons are the labels of cks_drift_kubectl_failures_total for this source. The SSH source
// shares timeout, too_many_nodes, output_too_large, bad_output and other, which mean the same
// there.
const (
	reasonKubeconfig  = "kubeconfig_unavailable"
	reasonUnreachable = "api_unreachable"
	reasonAuth        = "unauthorized"
	reasonTLS         = "tls"
	reasonTimeout     = "timeout"
	reasonTooMany     = "too_many_nodes"
	reasonTooLarge    = "output_too_large"
	reasonBadAnswer   = "bad_output"
	reasonOther       = "other"
)

// Reasons returns every label Reason can return, in a fixed order, so that the exporter can
// export a zero for each before the first failure.
func Reasons() []string {
	return []string{
		reasonKubeconfig, reasonUnreachable, reasonAuth, reasonTLS, reasonTimeout,
		reasonTooMany, reasonTooLarge, reasonBadAnswer, reasonOther,
	}
}

// Error is a failure of Nodes with its metric label. Its text never holds the kubeconfig or
// anything from it but the API server's address.
type Error struct {
	reason string
	err    error
}

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// Reason is the metric label of the failure.
func (e *Error) Reason() string { return e.reason }

func withReason(reason string, err error) error {
	return &Error{reason: reason, err: err}
}

// Reason returns the label of an error from Nodes, "" for nil.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.reason
	}
	return reasonOther
}

// classify labels an error of a list call. The order matters: a deadline hit while dialling is a
// timeout, not an unreachable server, and client-go reports a refused credential as a status,
// not as a transport error.
func classify(ctx context.Context, err error) error {
	var (
		netErr     net.Error
		opErr      *net.OpError
		dnsErr     *net.DNSError
		unknownCA  x509.UnknownAuthorityError
		hostname   x509.HostnameError
		invalid    x509.CertificateInvalidError
		verify     *tls.CertificateVerificationError
		alert      tls.AlertError
		recordHead tls.RecordHeaderError
	)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return withReason(reasonTimeout, err)
	case ctx.Err() != nil:
		return withReason(reasonOther, err) // cancelled by shutdown or reload: not the cluster's fault
	case apierrors.IsUnauthorized(err), apierrors.IsForbidden(err):
		return withReason(reasonAuth, boundStatus(err))
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &verify), errors.As(err, &alert), errors.As(err, &recordHead):
		return withReason(reasonTLS, err)
	case errors.Is(err, errPageTooLarge):
		return withReason(reasonTooLarge, err)
	case errors.As(err, &dnsErr), errors.As(err, &opErr) && opErr.Op == "dial":
		return withReason(reasonUnreachable, err)
	}
	return withReason(reasonOther, boundStatus(err))
}

// maxStatusMessage bounds the message of an error Status kept in an error: the API server is the
// tenant's, and its text reaches the debug log and, cut shorter, /findings. The real server's
// longest, a Forbidden naming a service account, is about 150 bytes.
const maxStatusMessage = 512

// boundStatus cuts the message of an error Status longer than maxStatusMessage, keeping its code.
func boundStatus(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || len(se.ErrStatus.Message) <= maxStatusMessage {
		return err
	}
	msg := strings.ToValidUTF8(se.ErrStatus.Message[:maxStatusMessage], "")
	return fmt.Errorf("%s... (status %d, message cut at %d bytes)", msg, se.ErrStatus.Code, maxStatusMessage)
}
