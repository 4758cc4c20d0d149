package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestEveryKindAlerts runs promtool on one finding of every declared kind: each fires the alert
// its declaration names, with its severity and its own description (collector.Declarations),
// never another kind's branch of the template. A kind declared without its rule fails here
// until make docs generates it.
// ifLabel is a template's {{ if $labels.<name> }}...{{ end }}: kept when the label is set.
var ifLabel = regexp.MustCompile(`\{\{ if \$labels\.([a-z_]+) \}\}(.*?)\{\{ end \}\}`)

func TestEveryKindAlerts(t *testing.T) {
	promtool := requireTool(t, "promtool", "apt-get install prometheus")
	type alert struct {
		ExpLabels      map[string]string `yaml:"exp_labels"`
		ExpAnnotations map[string]string `yaml:"exp_annotations"`
	}
	type alertTest struct {
		EvalTime  string  `yaml:"eval_time"`
		Alertname string  `yaml:"alertname"`
		ExpAlerts []alert `yaml:"exp_alerts"`
	}
	type series struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	rules, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	annotations := map[string]map[string]string{}
	for _, r := range rules.All() {
		annotations[r.Alert] = r.Annotations
	}
	// fill puts a finding's labels into a template that only reads labels.
	fill := func(tmpl string, labels map[string]string) string {
		tmpl = ifLabel.ReplaceAllStringFunc(tmpl, func(m string) string {
			g := ifLabel.FindStringSubmatch(m)
			if labels[g[1]] == "" {
				return ""
			}
			return g[2]
		})
		for name, v := range labels {
			tmpl = strings.ReplaceAll(tmpl, "{{ $labels."+name+" }}", v)
		}
		return tmpl
	}
	var in []series
	byAlert := map[string]*alertTest{}
	var order []string
	for _, d := range collector.Declarations {
		labels := map[string]string{"cluster_id": "c-" + string(d.Kind), "cluster_name": "n-" + string(d.Kind), "kind": string(d.Kind),
			"vm_id": "vm-" + string(d.Kind), "vm_name": "node-" + string(d.Kind)}
		in = append(in, series{Series: `cks_drift_finding{job="cks-drift",instance="a",cluster_id="` + labels["cluster_id"] +
			`",cluster_name="` + labels["cluster_name"] + `",kind="` + labels["kind"] + `",vm_id="` + labels["vm_id"] +
			`",vm_name="` + labels["vm_name"] + `"}`, Values: "1x30"})
		exp := map[string]string{"description": fill(d.Rule, labels)}
		for name, tmpl := range annotations[d.Alert] {
			if name != "description" {
				exp[name] = fill(tmpl, labels)
			}
		}
		want := map[string]string{"severity": d.Severity}
		for k, v := range labels {
			want[k] = v
		}
		at := byAlert[d.Alert]
		if at == nil {
			at = &alertTest{EvalTime: "15m", Alertname: d.Alert}
			byAlert[d.Alert] = at
			order = append(order, d.Alert)
		}
		at.ExpAlerts = append(at.ExpAlerts, alert{ExpLabels: want, ExpAnnotations: exp})
	}
	var tests []alertTest
	for _, name := range order {
		tests = append(tests, *byAlert[name])
	}
	doc, err := yaml.Marshal(map[string]any{
		"rule_files":          []string{RulesFile},
		"evaluation_interval": "1m",
		"tests":               []any{map[string]any{"interval": "1m", "input_series": in, "alert_rule_test": tests}},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, err := FS.ReadFile(RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, RulesFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kinds.test.yml"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "kinds.test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules, one finding of every kind: %v\n%s", err, out)
	}
}
