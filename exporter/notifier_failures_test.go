package exporter

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// notifierFailureLines returns the notifier's failure lines logged since mark, as "op".
func notifierFailureLines(e *env, mark int) []string {
	var out []string
	for _, l := range e.logs.since(mark, slog.LevelWarn) {
		if strings.HasPrefix(l.Msg, "Notifier call failed") || strings.HasPrefix(l.Msg, "The API key may not make this notifier call") {
			out = append(out, l.Attrs["op"])
		}
	}
	return out
}

// TestNotifierLogsEachFailingReasonOnce: one broken API fails for every cluster and every
// finding, cycle after cycle; the log says so once, not once per cluster or cycle.
func TestNotifierLogsEachFailingReasonOnce(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "a"}, simulator.ClusterSpec{Name: "b"}, simulator.ClusterSpec{Name: "c"})
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[2]); err != nil {
			t.Fatal(err)
		}
	}
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.waitFor("three findings", func() bool { return len(e.findings()) == 3 })
	e.nextCycles(4)
	if got := notifierFailureLines(e, 0); len(got) != 1 || got[0] != "addAnnotation" {
		t.Fatalf("failure lines for 3 clusters over 4 cycles: %q, want one for addAnnotation", got)
	}
	if m := e.metrics(); m["cks_drift_notification_failures_total"] < 6 {
		t.Fatalf("failures counted: %v, want every failed call", m["cks_drift_notification_failures_total"])
	}
}

// TestNotifierPermissionErrorIsAConfigurationError: a role without generateAlert (CloudStack
// answers 432, or 401 to a key its reads proved valid) is logged once at error level with the API
// to allow, counted by API and reason, and not tried again every cycle; annotations go on.
func TestNotifierPermissionErrorIsAConfigurationError(t *testing.T) {
	for _, tt := range []struct {
		status        int
		reason, other string
	}{
		{status: 432, reason: "forbidden", other: "unauthorized"},
		{status: 401, reason: "unauthorized", other: "forbidden"},
	} {
		t.Run(tt.reason, func(t *testing.T) { testNotifierPermissionError(t, tt.status, tt.reason, tt.other) })
	}
}

func testNotifierPermissionError(t *testing.T, status int, reason, other string) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "a"}, simulator.ClusterSpec{Name: "b"})
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[2]); err != nil {
			t.Fatal(err)
		}
	}
	e.sim.CloudStack.SetFault("generateAlert", cloudstacktest.Fault{Status: status})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.waitFor("two findings", func() bool { return len(e.findings()) == 2 })
	e.nextCycles(2)
	calls := func() int {
		n := 0
		for _, c := range e.sim.CloudStack.Calls() {
			if c.Command == "generateAlert" {
				n++
			}
		}
		return n
	}
	before := calls()
	e.nextCycles(5)
	if after := calls(); after != before || before == 0 {
		t.Fatalf("generateAlert calls: %d, then %d after 5 more cycles; want it tried and then paused", before, after)
	}
	errs := e.logs.since(0, slog.LevelError)
	if len(errs) != 1 || errs[0].Attrs["op"] != "generateAlert" || !strings.Contains(errs[0].Attrs["err"], "allow generateAlert in the role") {
		t.Fatalf("error lines: %+v, want one naming generateAlert and the role", errs)
	}
	m := e.metrics()
	denied := `cks_drift_notification_permission_denied_total{api="generateAlert",reason="%s"}`
	if m[fmt.Sprintf(denied, reason)] == 0 || m[fmt.Sprintf(denied, other)] != 0 {
		t.Fatalf("permission errors not counted with reason %s: %v", reason, matching(m, "permission_denied"))
	}
	annotations := 0
	for _, w := range e.writes() {
		if strings.HasPrefix(w, "addAnnotation [WARN]") {
			annotations++
		}
	}
	if annotations != 2 {
		t.Fatalf("annotations: %d, want 2 (they do not need generateAlert)", annotations)
	}
}
