package rules

import (
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/tooltest"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules/promqlcheck"
)

// wantAlerts are the alert names users route on; renaming one breaks their Alertmanager.
var wantAlerts = []string{
	"CKSVMMapDrift", "CKSNodeDrift", "CKSKubectlUnreachable", "CKSDriftCheckFailing",
	"CKSDriftCheckStale", "CKSDriftExporterDown", "CKSDriftExporterAbsent",
	"CKSDriftCheckDisabled", "CKSDriftConfigReloadFailed", "CKSDriftNotificationFailures", "CKSDriftShardMissing", "CKSDriftShardMismatch",
}

// notExporterMetrics may appear in expressions although the exporter does not emit them.
var notExporterMetrics = []string{"up", "time", "ALERTS", "ALERTS_FOR_STATE"}

type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Rules    []rule `yaml:"rules"`
	} `yaml:"groups"`
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	KeepFiring  string            `yaml:"keep_firing_for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type testFile struct {
	Tests []struct {
		AlertRuleTests []struct {
			EvalTime  string `yaml:"eval_time"`
			Alertname string `yaml:"alertname"`
			ExpAlerts []struct {
				ExpLabels map[string]string `yaml:"exp_labels"`
			} `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// requireTool returns the path of a command; see tooltest.Require.
func requireTool(t *testing.T, name, hint string) string {
	t.Helper()
	return tooltest.Require(t, name, hint)
}

func TestPromtool(t *testing.T) {
	promtool := requireTool(t, "promtool", "apt-get install prometheus")
	for _, args := range [][]string{
		{"check", "rules", RulesFile},
		{"test", "rules", TestsFile},
	} {
		t.Run(strings.Join(args[:2], "_"), func(t *testing.T) {
			out, err := exec.Command(promtool, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
}

func loadRules(t *testing.T) ([]rule, ruleFile) {
	t.Helper()
	data, err := fs.ReadFile(FS, RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", RulesFile, err)
	}
	var all []rule
	for _, g := range f.Groups {
		all = append(all, g.Rules...)
	}
	return all, f
}

func TestRuleFileShape(t *testing.T) {
	all, f := loadRules(t)
	if len(f.Groups) != 1 || f.Groups[0].Name != "cks-drift" || f.Groups[0].Interval != "1m" {
		t.Errorf("want one group cks-drift with interval 1m, got %+v", f.Groups)
	}
	var names []string
	for _, r := range all {
		names = append(names, r.Alert)
		if !slices.Contains([]string{"info", "warning", "critical"}, r.Labels["severity"]) {
			t.Errorf("%s: severity %q, want info, warning or critical", r.Alert, r.Labels["severity"])
		}
		for _, a := range []string{"summary", "description", "runbook"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("%s: no %s annotation", r.Alert, a)
			}
		}
	}
	if diff := cmp.Diff(wantAlerts, names); diff != "" {
		t.Errorf("alerts (-want +got):\n%s", diff)
	}
}

func TestExpressionsNameExportedMetrics(t *testing.T) {
	known, err := exporter.MetricNames()
	if err != nil {
		t.Fatal(err)
	}
	known = append(known, notExporterMetrics...)
	all, _ := loadRules(t)
	for _, r := range all {
		sels, err := promqlcheck.Parse(r.Expr)
		if err != nil {
			t.Errorf("%s: %v", r.Alert, err)
			continue
		}
		for _, s := range sels {
			if !slices.Contains(known, s.Metric) {
				t.Errorf("%s: the exporter does not emit %q", r.Alert, s.Metric)
			}
			// Two replicas must not double an alert: exporter series are aggregated away
			// from their instance label.
			if strings.HasPrefix(s.Metric, "cks_drift_") {
				// count_values counts distinct values, which replicas of one shard share.
				if !slices.Contains(s.Within, "max") && !slices.Contains(s.Within, "min") && !slices.Contains(s.Within, "count_values") {
					t.Errorf("%s: %s is not aggregated with max by, min by or count_values", r.Alert, s.Metric)
				}
				if strings.Contains(r.Expr, "instance") {
					t.Errorf("%s: keeps or names the instance label", r.Alert)
				}
			}
		}
	}
}

// TestDriftAlertsCoverEveryKind ties the kind matchers to the collector, so a new kind is
// alerted on by the alert of its side.
func TestDriftAlertsCoverEveryKind(t *testing.T) {
	all, _ := loadRules(t)
	for alert, side := range map[string]collector.Side{"CKSVMMapDrift": collector.SideVM, "CKSNodeDrift": collector.SideNode} {
		var want []string
		for _, k := range collector.Kinds {
			if k.Side() == side {
				want = append(want, string(k))
			}
		}
		var got []string
		for _, r := range all {
			if r.Alert != alert {
				continue
			}
			sels, err := promqlcheck.Parse(r.Expr)
			if err != nil || len(sels) != 1 || sels[0].Metric != "cks_drift_finding" {
				t.Fatalf("%s: want one selector of cks_drift_finding, got %v, %v", alert, sels, err)
			}
			if m, ok := sels[0].Matcher("kind"); ok && m.Op == "=~" {
				got = strings.Split(m.Value, "|")
			}
			// The bridge of notifier.mode alertmanager reads these labels from the alerts.
			for _, l := range []string{"cluster_id", "cluster_name", "kind", "vm_id", "vm_name"} {
				if !strings.Contains(r.Expr, l+",") && !strings.Contains(r.Expr, l+")") {
					t.Errorf("%s: does not keep label %s", alert, l)
				}
			}
			// A restart of the exporter or a failed scrape must not resolve drift alerts.
			if r.KeepFiring == "" {
				t.Errorf("%s: no keep_firing_for", alert)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: kinds (-want +got):\n%s", alert, diff)
		}
	}
}

// TestEveryAlertIsTested asks the promtool tests for each alert firing and not firing, and each
// description to name the labels the firing alert carries (cluster_name, kind, vm_name).
func TestEveryAlertIsTested(t *testing.T) {
	data, err := fs.ReadFile(FS, TestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var tf testFile
	if err := yaml.Unmarshal(data, &tf); err != nil {
		t.Fatalf("%s: %v", TestsFile, err)
	}
	firing := map[string][]map[string]string{}
	quiet := map[string]bool{}
	for _, tc := range tf.Tests {
		for _, a := range tc.AlertRuleTests {
			if len(a.ExpAlerts) == 0 {
				quiet[a.Alertname] = true
			}
			for _, e := range a.ExpAlerts {
				firing[a.Alertname] = append(firing[a.Alertname], e.ExpLabels)
			}
		}
	}
	all, _ := loadRules(t)
	for _, r := range all {
		if len(firing[r.Alert]) == 0 {
			t.Errorf("%s: no test in which it fires", r.Alert)
		}
		if !quiet[r.Alert] {
			t.Errorf("%s: no test in which it does not fire", r.Alert)
		}
		for _, labels := range firing[r.Alert] {
			for _, l := range []string{"cluster_name", "kind", "vm_name", "instance"} {
				if labels[l] != "" && !strings.Contains(r.Annotations["description"], "$labels."+l) {
					t.Errorf("%s: the description does not name %s", r.Alert, l)
				}
			}
		}
	}
}

func TestReadmeDescribesEveryAlert(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range wantAlerts {
		if !strings.Contains(string(readme), "`"+a+"`") {
			t.Errorf("README.md does not describe %s", a)
		}
	}
}
