package exporter

// Security tests: secrets never reach an output, the web endpoints behind TLS and basic auth,
// the CloudStack commands the exporter may send, the fixed kubectl command, and the CloudStack
// API's certificate checks.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"golang.org/x/crypto/bcrypt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/promtext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/sshtest"
)

// secTee sends every log record to each of its handlers.
type secTee []slog.Handler

func (m secTee) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range m {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (m secTee) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range m {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m secTee) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(secTee, len(m))
	for i, h := range m {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (m secTee) WithGroup(name string) slog.Handler {
	out := make(secTee, len(m))
	for i, h := range m {
		out[i] = h.WithGroup(name)
	}
	return out
}

// secLogBuffer is a bytes.Buffer for a log handler written by several goroutines.
type secLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *secLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *secLogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// secJSONLog returns a handler that writes every line at every level, with all its attributes
// resolved, as JSON into the buffer (what an operator's log shipper receives), and that also
// feeds the harness's logBuffer.
func (e *env) secJSONLog() (*secLogBuffer, slog.Handler) {
	buf := &secLogBuffer{}
	return buf, secTee{e.logs, slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})}
}

// secServe is start with a chosen log handler and web configuration file ("" serves plain HTTP,
// otherwise e.url is https://).
func (e *env) secServe(h slog.Handler, webConfigFile string) {
	e.t.Helper()
	exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(h)})
	if err != nil {
		e.t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	scheme := "http://"
	if webConfigFile != "" {
		scheme = "https://"
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.exp, e.url, e.cancel, e.done = exp, scheme+l.Addr().String(), cancel, make(chan error, 1)
	webCfg := &web.FlagConfig{WebListenAddresses: &[]string{l.Addr().String()}, WebSystemdSocket: new(bool), WebConfigFile: &webConfigFile}
	go func() { e.done <- exp.Run(ctx, ServeOptions{TelemetryPath: "/metrics", Web: webCfg, Listener: l}) }()
	e.t.Cleanup(e.stop)
}

// secConfig and secSetConfig read and replace the configuration file written by writeConfig.
func (e *env) secConfig() string {
	e.t.Helper()
	b, err := os.ReadFile(e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) secSetConfig(content string) {
	e.t.Helper()
	if err := os.WriteFile(e.cfg, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// secReplace replaces the one occurrence of old in s, failing the test when there is none, so that
// a change of the simulator's configuration cannot make an edit silently do nothing.
func secReplace(t *testing.T, s, old, repl string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times in:\n%s", old, strings.Count(s, old), s)
	}
	return strings.Replace(s, old, repl, 1)
}

// secPost posts to url and returns the status and the body.
func secPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// secPEMLines returns the base64 lines of the PEM blocks in b.
func secPEMLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// secOutputs collects what the exporter showed, by where it showed it.
type secOutputs struct {
	names []string
	texts map[string]string
}

func (o *secOutputs) add(name, text string) {
	if o.texts == nil {
		o.texts = make(map[string]string)
	}
	if _, ok := o.texts[name]; !ok {
		o.names = append(o.names, name)
	}
	o.texts[name] += text
}

// TestSecretsNeverLeak runs the exporter through drift, notifier failures and timeouts, failing
// kubectl and SSH authentication, CloudStack faults, a wrong secret key, failing reloads and an
// unreachable database, and --once, and then looks for every secret in every output: the log
// (every line at every level with its attributes), /metrics, /findings, the landing page, the
// reload answers and the --once table and JSON. A request signature ("signature=", which only a
// signed URL holds) must not show either. The fake CloudStack's call log is not an output: it
// is what CloudStack received.
func TestSecretsNeverLeak(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "other"})
	e.writeConfig("  interval: 100ms\n", "")

	// The fake accepts only its fixed credentials, so those are the needles.
	const wrongSecret, dbPassword = "WRONG-SECRET-4711", "DB-PASS-0815"
	apiKey, secretKey := e.sim.CloudStack.APIKey(), e.sim.CloudStack.SecretKey()
	keyFile := filepath.Join(e.dir, "id_ed25519")
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	// A second client key, which no control node accepts: SSH authentication fails with it.
	_, otherPEM, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	otherKeyFile := filepath.Join(e.dir, "other_ed25519")
	// A key file cut short: loading it fails the reload.
	body := secPEMLines(keyPEM)
	brokenKeyFile := filepath.Join(e.dir, "broken_ed25519")
	broken := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(body[:len(body)/2], "\n") + "\n-----END OPENSSH PRIVATE KEY-----\n"
	for f, content := range map[string][]byte{otherKeyFile: otherPEM, brokenKeyFile: []byte(broken)} {
		if err := os.WriteFile(f, content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	needles := map[string]string{
		"the API key": apiKey, "the secret key": secretKey, "the wrong secret key": wrongSecret,
		"the database password": dbPassword, "a request signature": "signature=", "a private key": "PRIVATE KEY",
	}
	for i, l := range body {
		needles[fmt.Sprintf("line %d of the SSH private key", i+1)] = l
	}
	for i, l := range secPEMLines(otherPEM) {
		needles[fmt.Sprintf("line %d of the second SSH private key", i+1)] = l
	}

	// A short API timeout, so that a delayed answer becomes a transport error, the kind of error
	// that carries the request's URL (with the API key and the signature in its query).
	base := secReplace(t, e.secConfig(), "  secret_key: "+secretKey+"\n", "  secret_key: "+secretKey+"\n  timeout: 1s\n")
	e.secSetConfig(base)
	database := base + "inventory:\n  source: database\ndatabase:\n  dsn: \"reader:" + dbPassword + "@tcp(127.0.0.1:1)/cloud\"\n"
	wrong := secReplace(t, base, "secret_key: "+secretKey, "secret_key: "+wrongSecret)

	logs, handler := e.secJSONLog()
	var out secOutputs
	grab := func(stage string) {
		t.Helper()
		for _, p := range []string{"/", "/metrics", "/findings"} {
			_, b := get(t, e.url+p)
			out.add("GET "+p+" ("+stage+")", b)
		}
	}
	reload := func(stage string, want int) string {
		t.Helper()
		code, b := secPost(t, e.url+"/-/reload", "")
		if code != want {
			t.Fatalf("reload (%s): %d, want %d: %s", stage, code, want, b)
		}
		out.add("POST /-/reload ("+stage+")", b)
		return b
	}
	up := func() float64 { return e.metrics()["cks_drift_up"] }

	e.secServe(handler, "")
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	grab("start")

	// Drift, announced while generateAlert times out once and addAnnotation fails once.
	e.sim.CloudStack.SetFault("generateAlert", cloudstacktest.Fault{Delay: 3 * time.Second, Times: 1})
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530, Times: 1})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the finding and its alert", func() bool { return len(e.findings()) == 1 && len(e.storedAlerts()) == 1 })
	grab("drift")

	// kubectl failing on a control node, then a client key the control nodes refuse.
	node := e.sim.Node(cs[1].ID)
	node.SetMode(sshtest.FailCommand)
	e.waitFor("kubectl failures", func() bool { return e.metrics()[`cks_drift_kubectl_failures_total{reason="exit_status"}`] >= 2 })
	grab("kubectl failing")
	node.SetMode(sshtest.Normal)
	e.secSetConfig(secReplace(t, base, keyFile, otherKeyFile))
	reload("other ssh key", http.StatusOK)
	e.waitFor("ssh auth failures", func() bool { return e.metrics()[`cks_drift_kubectl_failures_total{reason="auth"}`] >= 2 })
	grab("ssh auth failing")
	e.secSetConfig(base)
	reload("good", http.StatusOK)

	// CloudStack failing: an internal error, then answers slower than the timeout.
	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Status: 530})
	e.waitFor("cks_drift_up 0 on fault 530", func() bool { return up() == 0 })
	e.nextCycles(1)
	grab("fault 530")
	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: 3 * time.Second})
	e.waitFor("a timeout", func() bool {
		_, b := get(t, e.url+"/findings")
		return strings.Contains(b, "Client.Timeout")
	})
	grab("timeout")
	e.sim.CloudStack.ClearFaults()
	e.waitFor("cks_drift_up 1", func() bool { return up() == 1 })

	// A wrong secret key: the reload succeeds (nothing can check a key but CloudStack), the
	// cycles fail with 401.
	e.secSetConfig(wrong)
	reload("wrong secret", http.StatusOK)
	e.waitFor("cks_drift_up 0 with the wrong secret", func() bool { return up() == 0 })
	e.nextCycles(1)
	if m := e.metrics(); m["cks_drift_config_last_reload_successful"] != 1 {
		t.Fatalf("the reload with a wrong secret key failed: %v", matching(m, "reload"))
	}
	refused := false
	for _, c := range e.sim.CloudStack.Calls() {
		refused = refused || c.Refused == "signature mismatch"
	}
	if !refused {
		t.Fatal("CloudStack refused no call for its signature: the wrong secret key was not used")
	}
	grab("wrong secret")

	// Reloads that fail answer with the error: it must not quote what it could not use.
	for name, cfg := range map[string]string{
		"secret key not a string":      secReplace(t, base, "secret_key: "+secretKey, "secret_key: ["+wrongSecret+"]"),
		"secret key mapping":           secReplace(t, base, "secret_key: "+secretKey, "secret_key: {"+wrongSecret+": x}"),
		"unterminated quote":           secReplace(t, base, "secret_key: "+secretKey, `secret_key: "`+wrongSecret),
		"misspelt secret key":          secReplace(t, base, "  secret_key: ", "  secret_kee: "),
		"malformed dsn":                base + "inventory:\n  source: database\ndatabase:\n  dsn: \"reader:" + dbPassword + "@tcp(127.0.0.1:1/cloud\"\n",
		"dsn not a string":             base + "inventory:\n  source: database\ndatabase:\n  dsn: [\"reader:" + dbPassword + "@tcp(127.0.0.1:1)/cloud\"]\n",
		"ssh key cut short":            secReplace(t, base, keyFile, brokenKeyFile),
		"ssh key file is the api key":  secReplace(t, base, keyFile, filepath.Join(e.dir, "api-key")),
		"api key file holding the pem": secReplace(t, base, "  api_key: "+apiKey+"\n", "  api_key_file: "+keyFile+"\n"),
	} {
		if name == "ssh key file is the api key" {
			if err := os.WriteFile(filepath.Join(e.dir, "api-key"), []byte(apiKey+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		e.secSetConfig(cfg)
		code, b := secPost(t, e.url+"/-/reload", "")
		out.add("POST /-/reload ("+name+")", b)
		if name == "api key file holding the pem" {
			// Not an error for the configuration: a key is any text. The cycles fail with 401.
			if code != http.StatusOK {
				t.Fatalf("reload (%s): %d: %s", name, code, b)
			}
			e.nextCycles(2)
			if up() != 0 {
				t.Fatalf("a cycle succeeded with the PEM as the API key")
			}
			grab(name)
			continue
		}
		if code != http.StatusInternalServerError || !strings.Contains(b, "Reload failed") {
			t.Fatalf("reload (%s): %d, want 500: %s", name, code, b)
		}
	}

	// The database as the inventory source, unreachable: the cycles fail, the reload does not.
	e.secSetConfig(database)
	reload("database", http.StatusOK)
	e.waitFor("a failed cycle on the database", func() bool {
		_, b := get(t, e.url+"/findings")
		return strings.Contains(b, "connection refused")
	})
	grab("database")
	e.stop()

	// --once, as a table and as JSON, with drift and a failing control node, and with each
	// failure above.
	node.SetMode(sshtest.FailCommand)
	for name, cfg := range map[string]string{"good": base, "wrong secret": wrong, "database": database, "other ssh key": secReplace(t, base, keyFile, otherKeyFile)} {
		e.secSetConfig(cfg)
		for _, format := range []string{"table", "json"} {
			exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(handler)})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			code := exp.RunOnce(context.Background(), &b, format)
			_ = exp.Close()
			out.add("--once.format="+format+" ("+name+")", b.String())
			if name == "good" && (code != ExitDrift || !strings.Contains(b.String(), "unmapped_vm")) {
				t.Fatalf("--once (%s, %s): exit %d:\n%s", name, format, code, b.String())
			}
			if name == "wrong secret" && code != ExitCheckErr {
				t.Fatalf("--once (%s, %s): exit %d:\n%s", name, format, code, b.String())
			}
		}
	}
	node.SetMode(sshtest.Normal)
	out.add("log", logs.String())

	// The paths that carry error texts were taken, or finding nothing would prove nothing.
	log := logs.String()
	for _, want := range []string{
		"Could not read the inventory", "unable to verify user credentials", "Client.Timeout",
		"Notifier call failed", "connection refused", "unable to authenticate", "exited with status 1",
		"Could not reload the configuration",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log never says %q: the test did not exercise that failure", want)
		}
	}

	for _, name := range out.names {
		text := out.texts[name]
		for what, needle := range needles {
			if i := strings.Index(text, needle); i >= 0 {
				t.Errorf("%s shows %s: ...%s...", name, what, text[max(0, i-200):min(len(text), i+len(needle)+100)])
			}
		}
	}
}

// secSelfSigned returns a self-signed ECDSA certificate for the IP address and its key, both
// PEM-encoded; the certificate is its own CA.
func secSelfSigned(t *testing.T, ip string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "cks-drift-exporter test"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP(ip)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
}

// secParseMetrics reads an exposition into "name{labels}" -> value.
func secParseMetrics(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out, err := promtext.Samples(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWebTLSAndBasicAuth serves the exporter with a web configuration file (TLS with a
// self-signed certificate and a bcrypt basic-auth user) and scrapes it over HTTPS: every
// endpoint, the webhook and /-/reload included, needs the credentials; plain HTTP and clients
// that do not trust the certificate get nothing.
func TestWebTLSAndBasicAuth(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "  mode: alertmanager\n")
	certPEM, keyPEM := secSelfSigned(t, "127.0.0.1")
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
	webConfig := filepath.Join(e.dir, "web-config.yml")
	content := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n  min_version: TLS12\nbasic_auth_users:\n  %s: %s\n", certFile, keyFile, user, hash)
	if err := os.WriteFile(webConfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := web.Validate(webConfig); err != nil {
		t.Fatalf("web.Validate: %v", err)
	}
	e.secServe(e.logs, webConfig)

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
		return secParseMetrics(t, body)
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

	// With the credentials every endpoint answers.
	for _, ep := range endpoints {
		code, body, _ := do(ep.method, ep.path, user, password, ep.body)
		want := http.StatusOK
		if ep.path == "/-/check" {
			want = http.StatusAccepted
		}
		if code != want {
			t.Errorf("%s %s with the credentials: %d, want %d: %.200s", ep.method, ep.path, code, want, body)
		}
	}
	e.waitFor("the reload and the webhook counted", func() bool {
		m := scrape()
		return m[`cks_drift_config_reloads_total{result="success"}`] == 1 && m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] == 1
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

// Notifier alert types of the default configuration.
const secTypeMin, secTypeMax = 20000, 29999

// TestCloudStackAllowList runs cycles through drift on both sides, the alert cap and its
// summary, failing and retried notifications, a failing inventory and the resolution of
// everything, and then reads the fake's call log: only the commands the README's permission
// list names were sent, and the only writes are the notifier's own alerts (types in its range),
// the archiving of those types, and admins-only annotations on Kubernetes clusters.
func TestCloudStackAllowList(t *testing.T) {
	specs := []simulator.ClusterSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "  max_alerts_per_cycle: 2\n")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	cycle := func() {
		t.Helper()
		n := e.cycles()
		post(t, e.url+"/-/check")
		e.waitFor("a cycle", func() bool { return e.cycles() > n })
	}

	e.sim.CloudStack.SetFault("generateAlert", cloudstacktest.Fault{Status: 530, Times: 1})
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530, Times: 1})
	restart, err := e.sim.StopKubelet(cs[0].ID, cs[0].VMs[2]) // before the map rows go: it restores the nodes of the map
	if err != nil {
		t.Fatal(err)
	}
	var restore []func()
	for _, c := range cs {
		r, err := e.sim.DeleteMapRow(c.ID, c.VMs[1])
		if err != nil {
			t.Fatal(err)
		}
		restore = append(restore, r)
	}
	cycle()
	cycle()
	cycle() // the retries
	if f := e.findings(); len(f) != 5 {
		t.Fatalf("findings: %q", f)
	}
	e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530, Times: 1})
	cycle()
	for _, r := range restore {
		r()
	}
	restart()
	cycle()
	cycle()
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings after the repair: %q", f)
	}
	m := e.metrics()
	w := e.writes()
	if m["cks_drift_notifications_capped_total"] == 0 || m["cks_drift_notification_failures_total"] < 2 || m["cks_drift_cycle_failures_total"] != 1 ||
		count(w, "archiveAlerts") == 0 || count(w, "[INFO]") == 0 || count(w, "generateAlert") < 3 {
		t.Fatalf("the run did not go through the cap, failures, retries and resolutions: capped %v, notification failures %v, cycle failures %v, writes %q",
			m["cks_drift_notifications_capped_total"], m["cks_drift_notification_failures_total"], m["cks_drift_cycle_failures_total"], w)
	}

	allowed := []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules", "queryAsyncJobResult",
		"generateAlert", "listAlerts", "archiveAlerts", "addAnnotation", "listAnnotations"}
	clusterIDs := make(map[string]bool)
	for _, c := range cs {
		clusterIDs[c.ID] = true
	}
	inRange := func(s string) bool {
		n, err := strconv.Atoi(s)
		return err == nil && n >= secTypeMin && n <= secTypeMax
	}
	seen := make(map[string]int)
	for _, c := range e.sim.CloudStack.Calls() {
		seen[c.Command]++
		if !slices.Contains(allowed, c.Command) {
			t.Errorf("command %q is not in the allow-list: %v", c.Command, c.Params)
			continue
		}
		p := c.Params
		switch c.Command {
		case "generateAlert":
			if !inRange(p.Get("type")) || p.Get("name") != "KUBERNETES.CLUSTER.VM.MAP.CHECK" || p.Has("podid") {
				t.Errorf("generateAlert outside the notifier's range or name: %v", p)
			}
		case "archiveAlerts":
			if !inRange(p.Get("type")) || p.Has("ids") || p.Has("startdate") || p.Has("enddate") {
				t.Errorf("archiveAlerts of other alerts than the notifier's types: %v", p)
			}
		case "addAnnotation":
			if p.Get("entitytype") != "KUBERNETES_CLUSTER" || p.Get("adminsonly") != "true" || !clusterIDs[p.Get("entityid")] {
				t.Errorf("addAnnotation not admins-only on a Kubernetes cluster: %v", p)
			}
		case "listAlerts":
			if !inRange(p.Get("type")) {
				t.Errorf("listAlerts of other alerts than the notifier's types: %v", p)
			}
		}
	}
	for _, c := range []string{"generateAlert", "archiveAlerts", "addAnnotation", "queryAsyncJobResult", "listAlerts",
		"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"} {
		if seen[c] == 0 {
			t.Errorf("%s was never called: the run did not exercise it", c)
		}
	}
	t.Logf("commands sent: %v", seen)
}

// TestKubectlCommandNeverFromCloudStackData gives a cluster and its VMs names full of shell
// syntax and checks that each control-node session ran exactly the configured command: the fake
// node counts only that exact string as a command and answers anything else with exit 127, so
// sessions == commands and no exit_status failure mean nothing else was executed.
func TestKubectlCommandNeverFromCloudStackData(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "evil"})
	canary := filepath.Join(t.TempDir(), "pwned")
	evil := "evil;$(touch " + canary + ")`touch " + canary + "`'\"|&>" + canary + " #"
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		c := w.ClusterByName("evil")
		c.Name = evil
		for i, id := range c.VMMap {
			role := "node" // the exporter finds the control node by "-control" in its name
			if i == 0 {
				role = "control"
			}
			w.VMs[id].Name = fmt.Sprintf("evil-%s-%d;$(touch %s)'\"`id`\n&& touch %s", role, i, canary, canary)
		}
	})
	e.writeConfig("  interval: 1h\n", "")
	const command = "sudo /opt/bin/kubectl get nodes -o name"
	cfg := e.secConfig()
	e.secSetConfig(secReplace(t, cfg, "  timeout: 5s\n", "  timeout: 5s\n  kubectl_command: "+command+"\n"))
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	for i := 2; i <= 3; i++ {
		post(t, e.url+"/-/check")
		e.waitFor("cycle "+strconv.Itoa(i), func() bool { return e.cycles() == float64(i) })
	}

	_, findings := get(t, e.url+"/findings")
	if !strings.Contains(findings, `"name": "evil;$(touch`) {
		t.Fatalf("the cluster's odd name did not reach the exporter:\n%s", findings)
	}
	node := e.sim.Node(cs[0].ID)
	if command != sshtest.DefaultCommand {
		t.Fatalf("the fake node answers %q, the exporter runs %q", sshtest.DefaultCommand, command)
	}
	if node.Commands() != 3 || node.Sessions() != node.Commands() {
		t.Fatalf("control node: %d sessions, %d of them the configured command; want 3 and 3", node.Sessions(), node.Commands())
	}
	m := e.metrics()
	if r := matching(m, `^cks_drift_kubectl_reachable`); r[keyOf(r)] != 1 || m[`cks_drift_kubectl_failures_total{reason="exit_status"}`] != 0 {
		t.Fatalf("kubectl: reachable %v, exit_status failures %v", r, m[`cks_drift_kubectl_failures_total{reason="exit_status"}`])
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("the canary file exists")
	}
}

// TestCAFile runs the exporter against the fake CloudStack served over HTTPS with its own
// certificate: trusted through cloudstack.ca_file the cycle succeeds; with no CA, or another CA,
// it fails with the certificate error in the log; insecure_skip_verify succeeds with a warning.
func TestCAFile(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	ts := httptest.NewUnstartedServer(e.sim.CloudStack.Handler())
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	caFile := filepath.Join(e.dir, "cloudstack-ca.pem")
	otherCA := filepath.Join(e.dir, "other-ca.pem")
	notPEM := filepath.Join(e.dir, "not-pem.txt")
	other, _ := secSelfSigned(t, "127.0.0.1")
	for f, content := range map[string][]byte{
		caFile:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}),
		otherCA: other,
		notPEM:  []byte("not a certificate\n"),
	} {
		if err := os.WriteFile(f, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfig("  interval: 1h\n", "")
	secretLine := "  secret_key: " + e.sim.CloudStack.SecretKey() + "\n"
	base := secReplace(t, e.secConfig(), "endpoint: "+e.sim.CloudStack.Endpoint()+"\n", "endpoint: "+ts.URL+"/client/api\n")

	const insecureWarning = "cloudstack.insecure_skip_verify"
	for _, tc := range []struct {
		name, extra string
		up          float64
		logged      string // in an ERROR line's err when up is 0, in a WARN line's message otherwise
	}{
		{"ca_file", "  ca_file: " + caFile + "\n", 1, ""},
		{"no ca_file", "", 0, "x509"},
		{"another CA", "  ca_file: " + otherCA + "\n", 0, "x509"},
		{"insecure_skip_verify", "  insecure_skip_verify: true\n", 1, insecureWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.secSetConfig(secReplace(t, base, secretLine, secretLine+tc.extra))
			mark := e.logs.mark()
			calls := len(e.sim.CloudStack.Calls())
			e.start()
			e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
			up := e.metrics()["cks_drift_up"]
			e.stop()
			if up != tc.up {
				t.Fatalf("cks_drift_up %v, want %v", up, tc.up)
			}
			warned := false
			for _, l := range e.logs.since(mark, slog.LevelWarn) {
				switch {
				case l.Level >= slog.LevelError && tc.up == 0 && strings.Contains(l.Attrs["err"], tc.logged):
					warned = true
				case l.Level == slog.LevelWarn && strings.Contains(l.Msg, insecureWarning):
					if tc.logged != insecureWarning {
						t.Errorf("insecure warning without insecure_skip_verify: %+v", l)
					}
					warned = true
				}
			}
			if tc.logged != "" && !warned {
				t.Errorf("nothing logged with %q: %+v", tc.logged, e.logs.since(mark, slog.LevelWarn))
			}
			if got := len(e.sim.CloudStack.Calls()); tc.up == 1 && got == calls {
				t.Error("the fake received no call")
			}
		})
	}

	e.secSetConfig(secReplace(t, base, secretLine, secretLine+"  ca_file: "+notPEM+"\n"))
	if _, err := New(Options{ConfigFile: e.cfg}); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Fatalf("a ca_file without a certificate: %v", err)
	}
}
