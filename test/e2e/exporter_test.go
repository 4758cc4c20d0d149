package e2e

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/promtext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// webhookPath is where the exporter takes Alertmanager's webhooks.
const webhookPath = "/alertmanager/webhook"

// webhookToken is the exporter's notifier.webhook_token, which Alertmanager sends as a bearer token.
const webhookToken = "e2e-webhook-token"

// runningExporter is the exporter under test, in this process, on a loopback port.
type runningExporter struct {
	addr string
	tap  *tap
	logs *logtest.Buffer
}

// startExporter runs the exporter with the simulator's configuration, alertmanager mode and a
// one-second cycle, until the test ends.
func startExporter(t *testing.T, sim *simulator.Simulator) *runningExporter {
	t.Helper()
	cfg, err := sim.WriteFiles(t.TempDir(), "  interval: "+fastInterval+"\n", "  mode: alertmanager\n  webhook_token: "+webhookToken+"\n")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logtest.Buffer{}
	exp, err := exporter.New(exporter.Options{ConfigFile: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{Listener: l}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	webCfg := &web.FlagConfig{WebListenAddresses: &[]string{l.Addr().String()}, WebSystemdSocket: new(bool), WebConfigFile: new(string)}
	go func() {
		done <- exp.Run(ctx, exporter.ServeOptions{TelemetryPath: "/metrics", Web: webCfg, Listener: tp})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("exporter Run: %v", err)
			}
		case <-time.After(stopTimeout):
			t.Errorf("exporter did not stop within %v", stopTimeout)
		}
		_ = exp.Close()
		if t.Failed() {
			t.Logf("--- log of the exporter:\n%s", logs)
		}
	})
	return &runningExporter{addr: l.Addr().String(), tap: tp, logs: logs}
}

// metrics scrapes the exporter and returns its samples as "name{labels}" -> value.
func (e *runningExporter) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	code, body, err := get("http://" + e.addr + "/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("scrape the exporter: %d %v", code, err)
	}
	out, err := promtext.Samples(string(body))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sum adds the samples whose series starts with prefix.
func sum(m map[string]float64, prefix string) (total float64, n int) {
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			total += v
			n++
		}
	}
	return total, n
}
