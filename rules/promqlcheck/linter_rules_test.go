package promqlcheck

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cks-drift-exporter/cks-drift-exporter/dashboards"
)

// TestDashboardLinterRules runs grafana/dashboard-linter's default rules, as reimplemented in
// linter_test.go, on every dashboard: each must pass all of them.
func TestDashboardLinterRules(t *testing.T) {
	t.Parallel()
	problems, err := lintFS(dashboards.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// goodDashboard passes every rule; each case of TestLinterRulesFail breaks it in one place.
const goodDashboard = `{
  "title": "t", "editable": false,
  "templating": {"list": [
    {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus"},
    {"name": "job", "label": "Job", "type": "query", "datasource": {"uid": "${datasource}"}, "query": "label_values(up, job)", "multi": true, "allValue": ".+", "refresh": 2},
    {"name": "instance", "label": "Instance", "type": "query", "datasource": {"uid": "${datasource}"}, "query": {"query": "label_values(up{job=~\"$job\"}, instance)"}, "multi": true, "allValue": ".+", "refresh": 2}
  ]},
  "panels": [{"id": 1, "type": "row", "title": "r", "panels": [
    {"id": 2, "type": "timeseries", "title": "p", "description": "d", "datasource": {"uid": "${datasource}"},
     "fieldConfig": {"defaults": {"unit": "short"}, "overrides": []},
     "targets": [{"expr": "sum(rate(x_total{job=~\"$job\", instance=~\"$instance\"}[$__rate_interval])) + max(increase(x_total{job=~\"$job\", instance=~\"$instance\"}[1h]))"}]}
  ]}]
}`

func TestLinterRulesFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ rule, old, new string }{
		{"template-datasource-rule", `"name": "datasource", "label": "Data source"`, `"name": "ds", "label": "Data source"`},
		{"template-job-rule", `"allValue": ".+", "refresh": 2},`, `"allValue": ".*", "refresh": 2},`},
		{"template-instance-rule", `"name": "instance", "label": "Instance"`, `"name": "node", "label": "Instance"`},
		{"template-label-promql-rule", `"query": "label_values(up, job)"`, `"query": "label_values(up{, job)"`},
		{"template-on-time-change-reload-rule", `"allValue": ".+", "refresh": 2},`, `"allValue": ".+", "refresh": 1},`},
		{"panel-datasource-rule", `"description": "d", "datasource": {"uid": "${datasource}"}`, `"description": "d", "datasource": {"uid": "P1809F7CD0C75ACF3"}`},
		{"panel-title-description-rule", `"description": "d"`, `"description": ""`},
		{"panel-units-rule", `"unit": "short"`, `"unit": "clusters"`},
		{"panel-no-targets-rule", `"targets": [{"expr": "sum(rate(x_total{job=~\"$job\", instance=~\"$instance\"}[$__rate_interval])) + max(increase(x_total{job=~\"$job\", instance=~\"$instance\"}[1h]))"}]`, `"links": []`},
		{"target-promql-rule", `[$__rate_interval])) +`, `[$__rate_interval]) +`},
		{"target-rate-interval-rule", `[$__rate_interval]`, `[5m]`},
		{"target-job-rule", `rate(x_total{job=~\"$job\", `, `rate(x_total{job=\"$job\", `},
		{"target-instance-rule", `increase(x_total{job=~\"$job\", instance=~\"$instance\"}`, `increase(x_total{job=~\"$job\"}`},
		{"target-counter-agg-rule", `max(increase(x_total{job=~\"$job\", instance=~\"$instance\"}[1h]))`, `max(x_total{job=~\"$job\", instance=~\"$instance\"})`},
		{"uneditable-dashboard", `"editable": false`, `"editable": true`},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			if !strings.Contains(goodDashboard, tc.old) {
				t.Fatalf("the good dashboard has no %s", tc.old)
			}
			bad := strings.Replace(goodDashboard, tc.old, tc.new, 1)
			problems, err := lintFS(fstest.MapFS{"d.json": {Data: []byte(bad)}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "d.json: "+tc.rule+": ") }) {
				t.Errorf("%s did not fail; problems: %q", tc.rule, problems)
			}
		})
	}
	problems, err := lintFS(fstest.MapFS{"d.json": {Data: []byte(goodDashboard)}})
	if err != nil || len(problems) != 0 {
		t.Errorf("the good dashboard: %q, %v", problems, err)
	}
	if len(linterRules) != 15 {
		t.Errorf("%d rules, want the linter's 17 defaults less its two Loki rules", len(linterRules))
	}
}
