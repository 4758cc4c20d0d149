package exporter

// The web endpoints behind TLS and basic auth, from a web configuration file.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/certtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/prometheus/exporter-toolkit/web"
	"golang.org/x/crypto/bcrypt"
)

// TestWebTLSAndBasicAuth serves the exporter with a web configuration file (TLS with a
// self-signed certificate and a bcrypt basic-auth user) and scrapes it over HTTPS: every
// endpoint, the webhook and /-/reload included, needs the credentials; plain HTTP and clients
// that do not trust the certificate get nothing. The scrape credentials do not open the webhook:
// Alertmanager logs in as a user of its own whose password is the webhook token.
// It runs alone, not in parallel: an unknown user is checked against a bcrypt hash of the
// default cost, and forty such checks under the race detector already take seconds.
func TestWebTLSAndBasicAuth(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", alertmanagerMode)
	certPEM, keyPEM := certtest.SelfSigned(t, "127.0.0.1")
	certFile, keyFile := filepath.Join(e.dir, "web.crt"), filepath.Join(e.dir, "web.key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	const user, password = "prometheus", "correct-horse-battery-staple"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	amHash, err := bcrypt.GenerateFromPassword([]byte(webhookToken), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(e.dir, "web-config.yml")
	content := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n  min_version: TLS12\nbasic_auth_users:\n  %s: %s\n  alertmanager: %s\n",
		certFile, keyFile, user, hash, amHash)
	if err := os.WriteFile(webConfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := web.Validate(webConfig); err != nil {
		t.Fatalf("web.Validate: %v", err)
	}
	e.serve(e.logs, webConfig)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(client.CloseIdleConnections)
	do := func(method, path, user, pass, body string) (int, string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	scrape := func() map[string]float64 {
		t.Helper()
		code, body, _ := do("GET", "/metrics", user, password, "")
		if code != http.StatusOK {
			t.Fatalf("GET /metrics with the credentials: %d", code)
		}
		return parseMetrics(t, body)
	}
	e.waitFor("the first cycle, over HTTPS", func() bool { return scrape()["cks_drift_up"] == 1 })
	if !strings.HasPrefix(e.url, "https://") {
		t.Fatalf("url %s", e.url)
	}

	firing := webhook("firing", cs[0].ID, "test", "unmapped_vm", "v", "n", "2026-06-05T20:20:29Z")
	endpoints := []struct{ method, path, body string }{
		{"GET", "/metrics", ""}, {"GET", "/findings", ""}, {"GET", "/", ""}, {"GET", "/-/healthy", ""},
		{"GET", "/-/ready", ""}, {"POST", "/-/reload", ""}, {"POST", "/-/check", ""},
		{"POST", "/alertmanager/webhook", firing},
	}
	for _, ep := range endpoints {
		for _, cred := range []struct{ user, pass string }{{"", ""}, {user, "wrong-password"}, {user, ""}, {"admin", password}, {strings.ToUpper(user), password}} {
			code, body, header := do(ep.method, ep.path, cred.user, cred.pass, ep.body)
			if code != http.StatusUnauthorized || strings.Contains(body, "cks_drift") {
				t.Errorf("%s %s as %q/%q: %d, want 401: %.200s", ep.method, ep.path, cred.user, cred.pass, code, body)
			}
			if !strings.HasPrefix(header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("%s %s: 401 without a Basic challenge", ep.method, ep.path)
			}
		}
	}
	// Nothing behind the 401s ran: no reload, no webhook, no extra cycle.
	m := scrape()
	if m[`cks_drift_config_reloads_total{result="success"}`] != 0 || m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] != 0 || m["cks_drift_cycles_total"] != 1 {
		t.Fatalf("unauthenticated requests had effects: reloads %v, webhooks %v, cycles %v",
			m[`cks_drift_config_reloads_total{result="success"}`], m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`], m["cks_drift_cycles_total"])
	}

	// With the credentials every endpoint answers, except the webhook: it needs its own token.
	for _, ep := range endpoints {
		code, body, _ := do(ep.method, ep.path, user, password, ep.body)
		want := http.StatusOK
		switch ep.path {
		case "/-/check":
			want = http.StatusAccepted
		case "/alertmanager/webhook":
			want = http.StatusUnauthorized
		}
		if code != want {
			t.Errorf("%s %s with the credentials: %d, want %d: %.200s", ep.method, ep.path, code, want, body)
		}
	}
	if code, body, _ := do("POST", "/alertmanager/webhook", "alertmanager", webhookToken, firing); code != http.StatusOK {
		t.Errorf("POST /alertmanager/webhook as alertmanager with the token: %d, want 200: %.200s", code, body)
	}
	e.waitFor("the reload and the webhooks counted", func() bool {
		m := scrape()
		return m[`cks_drift_config_reloads_total{result="success"}`] == 1 && m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] == 1 &&
			m[`cks_drift_alertmanager_webhooks_total{result="unauthorized"}`] == 1
	})

	// Plain HTTP on the HTTPS port gets no metrics.
	plain := &http.Client{Timeout: 10 * time.Second}
	resp, err := plain.Get("http://" + strings.TrimPrefix(e.url, "https://") + "/metrics")
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || strings.Contains(string(b), "cks_drift") {
			t.Fatalf("plain HTTP: %d %.200s", resp.StatusCode, b)
		}
	}
	// A client that does not trust the certificate does not connect.
	untrusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	if resp, err := untrusting.Get(e.url + "/metrics"); err == nil {
		resp.Body.Close()
		t.Fatal("HTTPS without the CA: connected")
	} else if !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("HTTPS without the CA: %v", err)
	}
	// Nor does one that offers only TLS 1.1.
	old := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}} //nolint:gosec // the point of the test
	if resp, err := old.Get(e.url + "/metrics"); err == nil {
		resp.Body.Close()
		t.Fatal("TLS 1.1: connected")
	} else if !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("TLS 1.1: %v, want the server to refuse the protocol version", err)
	}
}
