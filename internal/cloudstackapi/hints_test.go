package cloudstackapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// listClusters makes one read through the real SDK, as the inventory does.
func listClusters(t *testing.T, o Options) error {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sdk := c.SDK(ctx)
	_, err = sdk.Kubernetes.ListKubernetesClusters(sdk.Kubernetes.NewListKubernetesClustersParams())
	return Hint(Redact(err))
}

// TestErrorsSayWhatToFix: each mistake of a first setup gives an error that names the setting
// to change, and still carries the original text for a search engine.
func TestErrorsSayWhatToFix(t *testing.T) {
	fake := cloudstacktest.NewServer()
	t.Cleanup(fake.Close)
	good := Options{Endpoint: fake.Endpoint(), APIKey: fake.APIKey(), SecretKey: fake.SecretKey(), Timeout: 5 * time.Second}

	webServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<!DOCTYPE html><html><body>Not Found</body></html>"))
	}))
	t.Cleanup(webServer.Close)
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsServer.Close)

	for _, tc := range []struct {
		name  string
		opts  func(Options) Options
		fault *cloudstacktest.Fault
		want  []string
	}{
		{"endpoint without /client/api", func(o Options) Options { o.Endpoint = webServer.URL + "/client"; return o }, nil,
			[]string{"HTML page", "HTTP 404", "cloudstack.endpoint must be the API's URL, ending in /client/api"}},
		{"HTML with HTTP 200", nil, &cloudstacktest.Fault{RawBody: "<html><body>maintenance</body></html>"},
			[]string{"HTML page", "HTTP 200", "ending in /client/api"}},
		{"wrong secret key", func(o Options) Options { o.SecretKey = "wrong"; return o }, nil,
			[]string{"401", "unable to verify user credentials", "cloudstack.api_key and cloudstack.secret_key", "clock"}},
		{"wrong API key", func(o Options) Options { o.APIKey = "wrong"; return o }, nil,
			[]string{"401", "cloudstack.api_key and cloudstack.secret_key"}},
		{"self-signed certificate", func(o Options) Options { o.Endpoint = tlsServer.URL + "/client/api"; return o }, nil,
			[]string{"x509", "set cloudstack.ca_file"}},
		{"role without the API", nil, &cloudstacktest.Fault{Status: 432},
			[]string{"432", "role may not call this API"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			if tc.opts != nil {
				o = tc.opts(o)
			}
			if tc.fault != nil {
				fake.SetFault("listKubernetesClusters", *tc.fault)
				defer fake.ClearFaults()
			}
			err := listClusters(t, o)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q: %v", w, err)
				}
			}
			if strings.Contains(err.Error(), "signature=") || strings.Contains(err.Error(), fake.APIKey()) {
				t.Errorf("the error shows the signed query: %v", err)
			}
			if again := Hint(err); again.Error() != err.Error() {
				t.Errorf("a second Hint changed the error: %v", again)
			}
		})
	}
	if err := listClusters(t, good); err != nil {
		t.Fatalf("the good configuration fails: %v", err)
	}
}

func TestWriteHint(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("CloudStack API error 432 (CSExceptionErrorCode: 9999): The given command does not exist or it is not available for the user"), "may not call generateAlert: allow generateAlert"},
		{errors.New("CloudStack API error 401 (CSExceptionErrorCode: 0): unable to verify user credentials"), "may not call generateAlert"},
		{errors.New("CloudStack API error 530 (CSExceptionErrorCode: 4250): internal error"), ""},
	} {
		err := WriteHint("generateAlert", tc.err)
		if tc.want == "" {
			if err.Error() != tc.err.Error() || Permission(err) {
				t.Errorf("WriteHint(%v) = %v, want it unchanged", tc.err, err)
			}
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !Permission(err) {
			t.Errorf("WriteHint(%v) = %v, want %q", tc.err, err, tc.want)
		}
	}
}
