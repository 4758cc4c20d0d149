package exporter

import (
	"encoding/json"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

func TestEndpoints(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("ready", func() bool { code, _ := get(t, e.url+"/-/ready"); return code == http.StatusOK })

	for path, want := range map[string]string{"/": "Metrics", "/-/healthy": "Healthy", "/metrics": "cks_drift_up 1"} {
		if code, body := get(t, e.url+path); code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d, body lacks %q", path, code, want)
		}
	}
	code, body := get(t, e.url+"/findings")
	var r report.Report
	if err := json.Unmarshal([]byte(body), &r); code != http.StatusOK || err != nil {
		t.Fatalf("/findings: %d %v", code, err)
	}
	if !r.Cycle.Success || len(r.Clusters) != 1 || !r.Clusters[0].Checked || !r.Clusters[0].NodesReachable || r.Clusters[0].Findings == nil {
		t.Fatalf("/findings: %+v", r)
	}
	if strings.Contains(body, e.sim.CloudStack.SecretKey()) || strings.Contains(body, e.sim.CloudStack.APIKey()) {
		t.Fatal("/findings shows a key")
	}
	if code, _ := get(t, e.url+"/-/reload"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /-/reload: %d, want 405", code)
	}
	if code, _ := get(t, e.url+"/-/check"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /-/check: %d, want 405", code)
	}
}

func TestNotReadyBeforeTheFirstCycle(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("", "")
	exp, h := newHandler(t, Options{ConfigFile: e.cfg})
	if rec := serveOnce(h, "GET", "/-/ready"); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("/-/ready before the first cycle: %d", rec.Code)
	}
	if problems, err := testutil.GatherAndLint(exp.gatherer()); err != nil || len(problems) != 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
}
