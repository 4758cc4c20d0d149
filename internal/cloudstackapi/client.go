// Package cloudstackapi is the one connection to the CloudStack API that the inventory reader and
// the notifier's writer share: TLS, signed requests bound to a context, and answers checked.
package cloudstackapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus"
	promconfig "github.com/prometheus/common/config"
)

// Options configure the API client with validated values (the configuration owns the defaults);
// New refuses a zero Timeout instead of choosing one.
type Options struct {
	Endpoint           string
	APIKey             string
	SecretKey          string
	CAFile             string
	InsecureSkipVerify bool
	Timeout            time.Duration // per request
	// Metrics counts the requests and the bytes of their answers; nil counts nothing.
	Metrics *Metrics
}

// MaxResponseBytes bounds one answer of the API. A page of 500 VMs is about 2 MiB; an answer
// beyond the bound fails the call instead of growing the exporter's memory with it.
const MaxResponseBytes = 64 << 20

// Client makes signed calls to one CloudStack endpoint.
type Client struct {
	opts        Options
	transport   http.RoundTripper
	maxResponse int64         // MaxResponseBytes; lower in tests
	slow        time.Duration // SlowAfter(Timeout)
}

// New validates the options and prepares the HTTP transport (TLS from prometheus/common, with
// ca_file as the CA if given).
func New(o Options) (*Client, error) {
	if o.Endpoint == "" || o.APIKey == "" || o.SecretKey == "" {
		return nil, errors.New("cloudstack: endpoint, API key and secret key are required")
	}
	if o.Timeout <= 0 {
		return nil, fmt.Errorf("cloudstack: timeout %s is not positive", o.Timeout)
	}
	// prometheus/common builds the TLS settings, as for every Prometheus client: ca_file, when
	// given, is the one CA trusted for the API's certificate. The file is read here so that a
	// missing file and a file without a certificate each get their own message.
	tlsSettings := promconfig.TLSConfig{InsecureSkipVerify: o.InsecureSkipVerify}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("cloudstack: read ca_file: %w", err)
		}
		tlsSettings.CA = string(pem)
	}
	tlsConfig, err := promconfig.NewTLSConfig(&tlsSettings)
	if err != nil {
		return nil, fmt.Errorf("cloudstack: ca_file %s holds no PEM certificate: %w", o.CAFile, err)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = tlsConfig
	t.MaxIdleConnsPerHost = 8
	return &Client{opts: o, transport: t, maxResponse: MaxResponseBytes, slow: SlowAfter(o.Timeout)}, nil
}

// SDK returns an SDK client whose every request carries ctx. The SDK takes no context, so the
// context is bound to a per-call transport: cancelling ctx aborts the request under way.
func (c *Client) SDK(ctx context.Context) *cs.CloudStackClient {
	hc := &http.Client{Transport: ctxTransport{ctx: ctx, base: c.transport, max: c.maxResponse, metrics: c.opts.Metrics, slow: c.slow}, Timeout: c.opts.Timeout}
	return cs.NewAsyncClient(c.opts.Endpoint, c.opts.APIKey, c.opts.SecretKey, !c.opts.InsecureSkipVerify, cs.WithHTTPClient(hc))
}

type ctxTransport struct {
	ctx     context.Context
	base    http.RoundTripper
	max     int64 // bytes of one answer
	metrics *Metrics
	slow    time.Duration // a request that takes longer is slow (Metrics.TakeSlow)
}

// RoundTrip also refuses an error envelope sent with HTTP 200 (a proxy may do that): the SDK
// would decode it as an empty list, and an empty list of clusters would look like a cloud whose
// clusters are all gone.
// The request's duration runs to the end of its answer (of its headers for an error answer, which
// the SDK reads later) or its failure.
func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	cmd := command(r)
	read := t.metrics.count(cmd) // a request that fails on the way still cost CloudStack one
	defer t.metrics.observe(cmd, t.metrics.start(), t.slow)
	resp, err := t.base.RoundTrip(r.WithContext(t.ctx))
	if err != nil {
		return resp, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.max, max: t.max, read: read} // the SDK reads error answers too
	if resp.StatusCode != http.StatusOK {
		br := bufio.NewReaderSize(resp.Body, 512)
		head, _ := br.Peek(512) // fewer bytes at the end of a short body
		if err := htmlAnswer(resp, head); err != nil {
			_ = resp.Body.Close()
			return nil, err
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{br, resp.Body}
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := htmlAnswer(resp, body); err != nil {
		return nil, err
	}
	if err := errorEnvelope(body); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// ErrResponseTooLarge is the error of an answer longer than MaxResponseBytes.
var ErrResponseTooLarge = errors.New("CloudStack answer too large")

// cappedBody fails a read past max bytes, so that no reader (io.ReadAll in the SDK included) can
// hold more of one answer.
type cappedBody struct {
	io.ReadCloser
	left, max int64
	read      prometheus.Counter // the bytes read; nil counts nothing
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly max bytes from a longer one.
		var one [1]byte
		for {
			n, err := b.ReadCloser.Read(one[:])
			if n > 0 {
				return 0, fmt.Errorf("%w: more than %d bytes (a smaller cloudstack.page_size makes each list answer shorter)", ErrResponseTooLarge, b.max)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.read != nil && n > 0 {
		b.read.Add(float64(n))
	}
	return n, err
}

// errorEnvelope returns the error of {"<cmd>response": {"errorcode": N, "errortext": "..."}}. In
// JSON the quoted key "errorcode" can only appear as a key, so most answers skip the decoding.
func errorEnvelope(body []byte) error {
	if !bytes.Contains(body, []byte(`"errorcode"`)) {
		return nil
	}
	var outer map[string]json.RawMessage
	if json.Unmarshal(body, &outer) != nil {
		return nil // not JSON: the SDK reports it
	}
	for _, inner := range outer {
		var e struct {
			Code int    `json:"errorcode"`
			Text string `json:"errortext"`
		}
		if json.Unmarshal(inner, &e) == nil && e.Code != 0 {
			return fmt.Errorf("CloudStack answered HTTP 200 with error %d: %s", e.Code, e.Text)
		}
	}
	return nil
}

// Redact drops the query from the URL of a transport error. The SDK signs GET requests in the
// query, so the URL holds the API key and a signature valid for 15 minutes: logged as is, anyone
// reading the log could replay the request.
func Redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL, _, _ = strings.Cut(ue.URL, "?")
	}
	return err
}
