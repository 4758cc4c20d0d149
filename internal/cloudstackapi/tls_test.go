package cloudstackapi

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// TestCAFile builds the client's TLS from ca_file: the server's own certificate as the CA is
// trusted, a missing file and a file without a certificate each fail New with their own message,
// and no CA at all falls back to the system roots, which do not know the test server.
func TestCAFile(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"listzonesresponse":{}}`))
	}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	caFile, notPEM := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "not.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := Options{Endpoint: ts.URL + "/client/api", APIKey: "k", SecretKey: "s", Timeout: config.Defaults().CloudStack.Timeout}
	for _, tc := range []struct {
		name, caFile, newErr string
		trusted              bool
	}{
		{name: "ca_file", caFile: caFile, trusted: true},
		{name: "system roots", caFile: ""},
		{name: "missing file", caFile: filepath.Join(dir, "missing.pem"), newErr: "cloudstack: read ca_file: open"},
		{name: "no certificate", caFile: notPEM, newErr: "holds no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := opts
			o.CAFile = tc.caFile
			c, err := New(o)
			if tc.newErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.newErr) {
					t.Fatalf("New: %v, want an error with %q", err, tc.newErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tlsConfig := c.transport.(*http.Transport).TLSClientConfig
			if tlsConfig.InsecureSkipVerify {
				t.Fatal("InsecureSkipVerify without insecure_skip_verify")
			}
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, ts.URL, nil)
			resp, err := c.transport.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			if tc.trusted != (err == nil) {
				t.Fatalf("trusted %v, got err %v", tc.trusted, err)
			}
		})
	}
}
