package exporter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// keysCheckTimeout bounds the one call --config.check makes, whatever cloudstack.timeout says:
// the check must answer quickly on a machine that cannot reach CloudStack.
const keysCheckTimeout = 10 * time.Second

// endpointWarning says what is wrong with an endpoint that parses but is not the API's URL: the
// API is served under /client/api, and anything else answers the UI's or a web server's HTML.
func endpointWarning(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "" // validation already refused it
	}
	if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/client/api") {
		return fmt.Sprintf("cloudstack.endpoint %s does not end in /client/api: CloudStack serves its API there, and other paths answer HTML", endpoint)
	}
	return ""
}

// checkKeys makes the call --preflight starts with, listApis about one read API, within the
// shorter of timeout and keysCheckTimeout. An answer that shows the configuration wrong (an HTML
// page, a refused signature, an untrusted certificate) is returned with what to change. When
// CloudStack cannot be reached it returns a note and no error: where the exporter runs may reach
// it when this machine does not (a package build host).
func checkKeys(ctx context.Context, api *cloudstackapi.Client, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, keysCheckTimeout))
	defer cancel()
	err := listAPI(api.SDK(ctx), "listKubernetesClusters")
	var hinted *cloudstackapi.HintError
	switch {
	case err == nil, cloudstackapi.Code(err) == 431:
		// 431: the keys were accepted; whether the role allows the API is --preflight's question.
		return "CloudStack accepted the API keys", nil
	case errors.As(cloudstackapi.Hint(err), &hinted):
		return "", hinted
	case unreachable(err):
		return fmt.Sprintf("CloudStack could not be reached (%v), so the API keys were not checked", err), nil
	}
	return fmt.Sprintf("CloudStack answered with an error (%v), so the API keys were not checked", err), nil
}

// unreachable reports whether err is a network error: no route, connection refused, DNS, or a
// timeout before any answer.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	var ne net.Error
	return errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
