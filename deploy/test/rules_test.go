package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

const (
	rulesFile     = "../../rules/cks-drift.rules.yml"
	dashboardsDir = "../../dashboards"
)

// TestRenderedRulesAndDashboards: the rendered PrometheusRule holds exactly the groups of
// rules/cks-drift.rules.yml with the chart's job (cks-drift) in place of the rules' job=~ and
// passes promtool check rules; each dashboard of dashboards/ is a ConfigMap labelled for
// Grafana's sidecar with the dashboard as it is.
func TestRenderedRulesAndDashboards(t *testing.T) {
	for _, values := range []string{"one-replica.yaml", "three-shards.yaml"} {
		t.Run(values, func(t *testing.T) {
			m := decodeStrict(t, render(t, values))
			data, err := os.ReadFile(rulesFile)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.ReplaceAll(string(data), `job=~"cks-drift.*"`, `job="cks-drift"`))
			var want monitoringv1.PrometheusRuleSpec
			if err := yaml.UnmarshalStrict(data, &want); err != nil {
				t.Fatalf("%s as a PrometheusRule spec: %v", rulesFile, err)
			}
			if diff := cmp.Diff(want, m.prometheusRule.Spec); diff != "" {
				t.Errorf("PrometheusRule differs from %s (-file +chart):\n%s", rulesFile, diff)
			}
			promtoolCheck(t, m.prometheusRule.Spec)

			dashboards, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
			found := 0
			for _, cm := range m.configMaps {
				if cm.Labels["grafana_dashboard"] != "1" {
					continue
				}
				for name, text := range cm.Data {
					found++
					want, err := os.ReadFile(filepath.Join(dashboardsDir, name))
					if err != nil || strings.TrimSuffix(string(want), "\n") != text {
						t.Errorf("ConfigMap %s: %s differs from dashboards/%s (%v)", cm.Name, name, name, err)
					}
				}
			}
			if found != len(dashboards) || found == 0 {
				t.Errorf("%d dashboards in labelled ConfigMaps, want the %d of dashboards/", found, len(dashboards))
			}
		})
	}
}

// promtoolCheck writes the rendered rule groups as a rule file and runs promtool check rules.
func promtoolCheck(t *testing.T, spec monitoringv1.PrometheusRuleSpec) {
	t.Helper()
	promtool := tooltest.Require(t, "promtool", "apt-get install prometheus")
	data, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rendered.rules.yml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool check rules on the rendered PrometheusRule: %v\n%s", err, out)
	}
}

// promtoolTest runs promtool test rules with the rendered rule groups and tests, the YAML of
// the items of a promtool test file's tests list.
func promtoolTest(t *testing.T, spec monitoringv1.PrometheusRuleSpec, tests string) {
	t.Helper()
	promtool := tooltest.Require(t, "promtool", "apt-get install prometheus")
	data, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rendered.rules.yml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	file := "rule_files: [rendered.rules.yml]\nevaluation_interval: 1m\ntests:" + tests
	if err := os.WriteFile(filepath.Join(dir, "rendered.test.yml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "rendered.test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool test rules on the rendered PrometheusRule: %v\n%s", err, out)
	}
}
