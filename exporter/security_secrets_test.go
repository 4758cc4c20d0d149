package exporter

// Secrets never reach an output: not the log, /metrics, /findings, the landing page, the reload
// answers or --once.

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// outputs collects what the exporter showed, by where it showed it.
type outputs struct {
	names []string
	texts map[string]string
}

func (o *outputs) add(name, text string) {
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
	t.Parallel()
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
	body := pemLines(keyPEM)
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
	for i, l := range pemLines(otherPEM) {
		needles[fmt.Sprintf("line %d of the second SSH private key", i+1)] = l
	}

	// A short API timeout, so that a delayed answer becomes a transport error, the kind of error
	// that carries the request's URL (with the API key and the signature in its query).
	base := replaceOnce(t, e.config(), "  secret_key: "+secretKey+"\n", "  secret_key: "+secretKey+"\n  timeout: 1s\n")
	e.setConfig(base)
	database := base + "inventory:\n  source: database\ndatabase:\n  dsn: \"reader:" + dbPassword + "@tcp(127.0.0.1:1)/cloud\"\n"
	wrong := replaceOnce(t, base, "secret_key: "+secretKey, "secret_key: "+wrongSecret)

	logs, handler := e.jsonLog()
	var out outputs
	grab := func(stage string) {
		t.Helper()
		for _, p := range []string{"/", "/metrics", "/findings"} {
			_, b := get(t, e.url+p)
			out.add("GET "+p+" ("+stage+")", b)
		}
	}
	reload := func(stage string, want int) string {
		t.Helper()
		code, b := postBody(t, e.url+"/-/reload", "")
		if code != want {
			t.Fatalf("reload (%s): %d, want %d: %s", stage, code, want, b)
		}
		out.add("POST /-/reload ("+stage+")", b)
		return b
	}
	up := func() float64 { return e.metrics()["cks_drift_up"] }

	e.serve(handler, "")
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
	e.setConfig(replaceOnce(t, base, keyFile, otherKeyFile))
	reload("other ssh key", http.StatusOK)
	e.waitFor("ssh auth failures", func() bool { return e.metrics()[`cks_drift_kubectl_failures_total{reason="auth"}`] >= 2 })
	grab("ssh auth failing")
	e.setConfig(base)
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
	e.setConfig(wrong)
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
		"secret key not a string":      replaceOnce(t, base, "secret_key: "+secretKey, "secret_key: ["+wrongSecret+"]"),
		"secret key mapping":           replaceOnce(t, base, "secret_key: "+secretKey, "secret_key: {"+wrongSecret+": x}"),
		"unterminated quote":           replaceOnce(t, base, "secret_key: "+secretKey, `secret_key: "`+wrongSecret),
		"misspelt secret key":          replaceOnce(t, base, "  secret_key: ", "  secret_kee: "),
		"malformed dsn":                base + "inventory:\n  source: database\ndatabase:\n  dsn: \"reader:" + dbPassword + "@tcp(127.0.0.1:1/cloud\"\n",
		"dsn not a string":             base + "inventory:\n  source: database\ndatabase:\n  dsn: [\"reader:" + dbPassword + "@tcp(127.0.0.1:1)/cloud\"]\n",
		"ssh key cut short":            replaceOnce(t, base, keyFile, brokenKeyFile),
		"ssh key file is the api key":  replaceOnce(t, base, keyFile, filepath.Join(e.dir, "api-key")),
		"api key file holding the pem": replaceOnce(t, base, "  api_key: "+apiKey+"\n", "  api_key_file: "+keyFile+"\n"),
	} {
		if name == "ssh key file is the api key" {
			if err := os.WriteFile(filepath.Join(e.dir, "api-key"), []byte(apiKey+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		e.setConfig(cfg)
		code, b := postBody(t, e.url+"/-/reload", "")
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
	e.setConfig(database)
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
	for name, cfg := range map[string]string{"good": base, "wrong secret": wrong, "database": database, "other ssh key": replaceOnce(t, base, keyFile, otherKeyFile)} {
		e.setConfig(cfg)
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
