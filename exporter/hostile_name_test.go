package exporter

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// tenantName is a cluster name a tenant chooses to make its cluster read as another's and to
// colour an operator's terminal: a right-to-left override and an ANSI escape, with a zero-width
// space for good measure.
const tenantName = "prod\u202e\x1b[31mdoc\u200b"

// TestHostileNameReachesNothingRaw: a cluster so named, with drift, through a whole cycle of the
// exporter logging as JSON (slog's JSON handler writes format and C1 characters raw). Nothing
// unsafe reaches CloudStack (annotations and alerts), the log, the status page or /findings.
func TestHostileNameReachesNothingRaw(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: tenantName})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.writeConfig("  interval: 1h\n", "")
	var logs logtest.Buffer
	e.serve(slog.NewJSONHandler(&logs, nil), "")
	e.waitFor("the first cycle and its alert", func() bool { return e.cycles() >= 1 && len(e.storedAlerts()) == 1 })

	outputs := map[string]string{"log": logs.String()}
	for i, w := range e.writes() {
		outputs["CloudStack call "+string(rune('0'+i))] = w
	}
	for _, path := range []string{"/", "/clusters/" + url.PathEscape(cs[0].ID), "/findings"} {
		code, body := get(t, e.url+path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, code)
		}
		outputs[path] = body
	}
	if !strings.Contains(outputs["log"], `prod\\u202e\\x1b[31mdoc\\u200b`) {
		t.Errorf("the log does not show the name escaped:\n%s", outputs["log"])
	}
	for what, text := range outputs {
		if i := strings.IndexFunc(text, func(r rune) bool { return r != '\n' && r != '\t' && safetext.Unsafe(r) }); i >= 0 {
			t.Errorf("%s carries %U raw: %.200q", what, []rune(text[i:])[0], text[max(0, i-60):])
		}
	}
	if n := len(e.writes()); n < 2 {
		t.Errorf("%d CloudStack writes, want the annotation and the alert", n)
	}
}
