package exporter

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

func (e *env) once(t *testing.T, format string) (int, string) {
	t.Helper()
	exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(e.logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	var out bytes.Buffer
	code := exp.RunOnce(context.Background(), &out, format)
	return code, out.String()
}

func TestOnce(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "busy", State: "Upgrading"})
	e.writeConfig("", "")

	code, out := e.once(t, "table")
	if code != ExitClean || !strings.Contains(out, "No drift found in 1 cluster; 1 skipped, 0 with kubectl unreachable (2 clusters in all)") ||
		!strings.Contains(out, "skipped: busy") {
		t.Fatalf("clean cloud: exit %d, output:\n%s", code, out)
	}

	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[2]); err != nil {
		t.Fatal(err)
	}
	code, out = e.once(t, "table")
	if code != ExitDrift || !strings.Contains(out, "test") || !strings.Contains(out, "unmapped_vm") || !strings.Contains(out, cs[0].VMs[2]) {
		t.Fatalf("drift: exit %d, output:\n%s", code, out)
	}
	code, out = e.once(t, "json")
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--once.format=json is not JSON: %v\n%s", err, out)
	}
	if code != ExitDrift || r.FindingCount() != 1 || !r.Cycle.Success || r.Clusters[1].Findings[0].Kind != "unmapped_vm" {
		t.Fatalf("json: exit %d, report %+v", code, r)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("--once notified CloudStack: %q", w)
	}

	e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530})
	code, out = e.once(t, "table")
	if code != ExitCheckErr || !strings.Contains(out, "The check could not run") {
		t.Fatalf("failing API: exit %d, output:\n%s", code, out)
	}
	e.sim.CloudStack.ClearFaults()

	e.writeConfig("  enabled: false\n", "")
	if code, out = e.once(t, "table"); code != ExitCheckErr || !strings.Contains(out, "check.enabled is false") {
		t.Fatalf("disabled: exit %d, output:\n%s", code, out)
	}
}
