package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"k8s.io/client-go/rest"
)

// The API server belongs to the tenant, and every request to it carries the cluster's admin
// credential (client-go's bearer wrapper adds the token to every request, redirected ones
// included). Were a redirect followed, the tenant would pick the path and query of a GET the
// exporter makes from the management network (CloudStack's integration port, a metadata
// service), over plain http:// too, and its answer would be read as the node list. So the
// client talks to the kubeconfig's server only: a 3xx answer is a bad answer whose Location is
// never asked for, and a request for any other scheme or host is refused before it is sent.

var (
	errRedirect  = errors.New("the API server answered with a redirect, which is never followed")
	errElsewhere = errors.New("a request to another address than the kubeconfig's server was refused")
)

// oneServer checks each request and answer of one cluster's client. It sits inside client-go's
// credential wrappers, so a refused request has its Authorization header but is never sent.
type oneServer struct {
	base         http.RoundTripper
	scheme, host string
}

func (t oneServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != t.scheme || r.URL.Host != t.host {
		return nil, errElsewhere
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("%w (HTTP %d)", errRedirect, resp.StatusCode)
	}
	return resp, err
}

// httpClient returns the client for rc: newTransport's (HTTP/1.1, dialling through conns) under
// client-go's credential wrappers, wrapped in oneServer, and a CheckRedirect that returns a 3xx
// as it is should one ever get past the transport.
func httpClient(rc *rest.Config, conns *connBudget) (*http.Client, error) {
	u, err := url.Parse(rc.Host)
	if err != nil {
		return nil, err
	}
	base, err := newTransport(rc, conns)
	if err != nil {
		return nil, err
	}
	rc = rest.CopyConfig(rc)
	rc.TLSClientConfig = rest.TLSClientConfig{} // in base now; client-go refuses both
	rc.Transport = base
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return oneServer{base: rt, scheme: u.Scheme, host: u.Host}
	})
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, err
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return hc, nil
}

// requestFailure labels an error of a request: a redirect or a refused address is a bad answer
// of the API server, a connection's errors as connectionFailure says, anything else as classify
// says.
func requestFailure(ctx context.Context, err error) error {
	if errors.Is(err, errRedirect) || errors.Is(err, errElsewhere) {
		return withReason(reasonBadAnswer, err)
	}
	if labelled := connectionFailure(err); labelled != nil {
		return labelled
	}
	return classify(ctx, err)
}
