package exporter

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestFeatureOffNamed: a configuration that keeps 0.1.0's default kubectl command (node names
// only, so kubelet versions are never compared) is named with the fix by --config.check, and by
// one WARN at start, not again at a reload.
func TestFeatureOffNamed(t *testing.T) {
	t.Parallel()
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("", "")
	const old = "sudo /opt/bin/kubectl get nodes -o name --request-timeout=5s"
	e.editConfig("ssh:\n", "ssh:\n  kubectl_command: "+old+"\n")

	var out bytes.Buffer
	if err := CheckConfig(context.Background(), e.cfg, nil, true, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: ssh.kubectl_command " + old + " turns off the comparison of kubelet versions", "remove the key to take the default"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--config.check printed %q, want %q", out.String(), want)
		}
	}

	var logs logtest.Buffer
	exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	if _, _, err := exp.reload(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "The configuration turns a feature off"); n != 1 || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("logged the warning %d times, want once at WARN:\n%s", n, logs.String())
	}
}
