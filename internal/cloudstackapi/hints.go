package cloudstackapi

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The errors below are the ones an operator meets while setting the exporter up; each is
// recognised where it surfaces and said together with the setting that fixes it, so that the log,
// the status page, --once and --preflight all carry the fix.

// HintError is an error with what to change.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() + " (" + e.Hint + ")" }
func (e *HintError) Unwrap() error { return e.Err }

// ErrHTML is the error of an answer that is an HTML page: a web server, a login page or the
// CloudStack UI answered instead of the API.
var ErrHTML = errors.New("CloudStack answered with an HTML page, not the API")

// htmlAnswer returns an error when the body of resp, which starts with head, is an HTML page. The
// API answers JSON whatever its status, so a body that starts with '<' is never the API's.
func htmlAnswer(resp *http.Response, head []byte) error {
	if !bytes.HasPrefix(bytes.TrimSpace(head), []byte("<")) {
		return nil
	}
	return &HintError{
		Err:  fmt.Errorf("%w (HTTP %d from %s)", ErrHTML, resp.StatusCode, redactURL(resp.Request)),
		Hint: "cloudstack.endpoint must be the API's URL, ending in /client/api",
	}
}

func redactURL(r *http.Request) string {
	if r == nil || r.URL == nil {
		return "the endpoint"
	}
	u := *r.URL
	u.RawQuery = ""
	return u.String()
}

// apiErrorCode finds CloudStack's error code in an error of the SDK ("CloudStack API error 401
// (CSExceptionErrorCode: ...)") or of errorEnvelope; 0 when there is none.
var apiErrorCode = regexp.MustCompile(`CloudStack (?:API error|answered HTTP 200 with error) (\d{3})\b`)

// Code returns the CloudStack error code an error carries (401, 431, 432, 530...), or 0.
func Code(err error) int {
	if err == nil {
		return 0
	}
	m := apiErrorCode.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Permission reports whether err says the API key may not do what was asked: on a call the key
// is known to be valid for (a write after the reads worked), 401 and 432 both mean that its role
// lacks the API.
func Permission(err error) bool {
	c := Code(err)
	return c == 401 || c == 432
}

// Hint adds what to change to an error a read of the API returned, when the error is one an
// operator fixes in the configuration; other errors are returned as they are. A hint is added
// once.
func Hint(err error) error {
	if err == nil {
		return nil
	}
	var h *HintError
	if errors.As(err, &h) {
		return err
	}
	if hint := hintFor(err); hint != "" {
		return &HintError{Err: err, Hint: hint}
	}
	return err
}

// WriteHint adds to the error of a write (addAnnotation, generateAlert, listAlerts,
// archiveAlerts) what to change when the key's role lacks the API.
func WriteHint(api string, err error) error {
	if err == nil || !Permission(err) {
		return Hint(err)
	}
	return &HintError{Err: err, Hint: fmt.Sprintf("the API key's role may not call %s: allow %s in the role of the key's account, or turn that notification off in the notifier section", api, api)}
}

func hintFor(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &hostname):
		return "the API's TLS certificate does not name the host of cloudstack.endpoint: use a host name the certificate names"
	case errors.As(err, &unknownCA), errors.As(err, &verify) && strings.Contains(verify.Error(), "unknown authority"):
		return "the API's TLS certificate is not signed by a CA this machine trusts: set cloudstack.ca_file to the CA that signed it"
	case errors.As(err, &invalid):
		return "the API's TLS certificate is not valid (expired, or not for a server): renew it, or set cloudstack.ca_file"
	}
	switch Code(err) {
	case 401:
		return "check cloudstack.api_key and cloudstack.secret_key (or their _file settings) and this machine's clock: CloudStack refuses a signed request it thinks has expired"
	case 432:
		return "the API key's role may not call this API: allow it in the role of the key's account"
	}
	return ""
}
