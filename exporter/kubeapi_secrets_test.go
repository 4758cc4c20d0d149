package exporter

// A cluster's kubeconfig is a credential: it never reaches the log, /metrics, /findings, --once
// or the disk.

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestKubeconfigNeverLeaks runs the Kubernetes API source with a client-certificate kubeconfig
// and a token one, through a revoked credential, a kubeconfig that quotes its token where a
// mapping belongs (clientcmd's error would quote it), one that asks for a credential plugin, and
// --once; then looks for the tokens, every line of the client key and every kubeconfig in every
// output and in every file the exporter wrote.
func TestKubeconfigNeverLeaks(t *testing.T) {
	t.Parallel()
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "other"})
	e.writeConfig("  interval: 100ms\n", "")
	e.useKubernetesAPI()

	tokenAPI := startKubeAPI(t, e.sim, cs[0])
	certAPI, err := kubetest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(certAPI.Close)
	certAPI.SetNodes(nodesWithout(cs[1], "")...)
	cred, err := certAPI.NewClientCert("kubernetes-admin", true)
	if err != nil {
		t.Fatal(err)
	}
	certConf, err := certAPI.Kubeconfig(cred)
	if err != nil {
		t.Fatal(err)
	}
	e.sim.CloudStack.SetKubeconfig(cs[1].ID, certConf)

	const quoted = "kubetest-token-Quoted-Otter-4471"
	hostile := map[string]string{
		"type error": "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: " + quoted + "\n",
		"plugin": "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n" +
			"clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/echo, args: [" + quoted + "]}\n",
	}
	needles := map[string]string{"the token": tokenAPI.token, "the quoted token": quoted, "a private key": "PRIVATE KEY"}
	for i, l := range pemLines(cred.KeyPEM) {
		needles["line "+string(rune('a'+i))+" of the client key"] = l
	}

	logs, handler := e.jsonLog()
	e.serve(handler, "")
	var out outputs
	grab := func(stage string) {
		t.Helper()
		for _, p := range []string{"/metrics", "/findings"} {
			_, b := get(t, e.url+p)
			out.add("GET "+p+" ("+stage+")", b)
		}
	}
	e.waitFor("both clusters read", func() bool {
		r := matching(e.metrics(), `^cks_drift_kubectl_reachable\{`)
		return len(r) == 2 && r[keyOf(matching(r, `"test"`))] == 1 && r[keyOf(matching(r, `"other"`))] == 1
	})
	grab("start")

	tokenAPI.Revoke()
	e.waitFor("unauthorized", func() bool { return e.metrics()[`cks_drift_kubectl_failures_total{reason="unauthorized"}`] >= 2 })
	grab("revoked")
	for name, conf := range hostile {
		before := e.metrics()[`cks_drift_kubectl_failures_total{reason="kubeconfig_unavailable"}`]
		e.sim.CloudStack.SetKubeconfig(cs[0].ID, []byte(conf))
		e.waitFor(name, func() bool {
			return e.metrics()[`cks_drift_kubectl_failures_total{reason="kubeconfig_unavailable"}`] >= before+2
		})
		grab(name)
	}
	e.stop()

	for _, format := range []string{"table", "json"} {
		exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(handler)})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		exp.RunOnce(context.Background(), &b, format)
		_ = exp.Close()
		out.add("--once.format="+format, b.String())
	}
	out.add("log", logs.String())
	if !strings.Contains(logs.String(), "the kubeconfig cannot be read") || !strings.Contains(logs.String(), "credential plugin") {
		t.Fatalf("the failures with the hostile kubeconfigs were not logged: the test proves nothing")
	}
	_ = filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(path); err == nil {
				out.add("file "+filepath.Base(path), string(b))
			}
		}
		return nil
	})

	for _, name := range out.names {
		text := out.texts[name]
		for what, needle := range needles {
			if i := strings.Index(text, needle); i >= 0 {
				t.Errorf("%s shows %s: ...%s...", name, what, text[max(0, i-200):min(len(text), i+len(needle)+100)])
			}
		}
		for _, conf := range [][]byte{tokenAPI.conf, certConf} {
			if strings.Contains(text, string(conf)) {
				t.Errorf("%s shows a whole kubeconfig", name)
			}
		}
	}
}
