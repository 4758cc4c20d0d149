package cloudstacktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// newTestServer starts a fake and an async SDK client for it, both closed with the test.
func newTestServer(t *testing.T, opts ...cloudstack.ClientOption) (*Server, *cloudstack.CloudStackClient) {
	t.Helper()
	s := NewServer()
	t.Cleanup(s.Close)
	return s, cloudstack.NewAsyncClient(s.Endpoint(), s.APIKey(), s.SecretKey(), false, opts...)
}

// rawCall signs params as the SDK does (unless they already have a signature key, even an
// empty one) and GETs them,
// returning the HTTP status, headers and body.
func rawCall(t *testing.T, s *Server, params url.Values) (int, http.Header, []byte) {
	t.Helper()
	if params.Get("apiKey") == "" {
		params.Set("apiKey", s.APIKey())
	}
	if params.Get("response") == "" {
		params.Set("response", "json")
	}
	if params.Get("signatureversion") == "" {
		params.Set("signatureversion", "3")
		params.Set("expires", time.Now().UTC().Add(time.Minute).Format(time.RFC3339))
	}
	if _, ok := params["signature"]; !ok {
		params.Set("signature", Sign(params, s.SecretKey()))
	}
	resp, err := http.Get(s.Endpoint() + "?" + params.Encode())
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, resp.Header, body
}

// decodeEnvelope returns the inner object of a {"<cmd>response": {...}} answer.
func decodeEnvelope(t *testing.T, body []byte, command string) map[string]any {
	t.Helper()
	var outer map[string]map[string]any
	if err := json.Unmarshal(body, &outer); err != nil {
		t.Fatalf("answer is not an envelope: %v: %s", err, body)
	}
	inner, ok := outer[strings.ToLower(command)+"response"]
	if !ok || len(outer) != 1 {
		t.Fatalf("answer has keys %v, want only %sresponse: %s", keys(outer), strings.ToLower(command), body)
	}
	return inner
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// wantAPIError fails unless err is the SDK's rendering of a CloudStack error with that code.
func wantAPIError(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want CloudStack error %s", code)
	}
	if !strings.Contains(err.Error(), "CloudStack API error "+code) {
		t.Fatalf("got error %q, want CloudStack API error %s", err, code)
	}
}

// vmNames lists the names of VMs as the SDK decoded them.
func vmNames(vms []*cloudstack.VirtualMachine) []string {
	var out []string
	for _, vm := range vms {
		out = append(out, vm.Name)
	}
	return out
}

var testTime = time.Date(2024, 6, 5, 7, 51, 22, 0, time.UTC)
