package rules

import (
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// wantAlerts are the alert names users route on; renaming one breaks their Alertmanager.
var wantAlerts = []string{
	"CKSVMMapDrift", "CKSNodeDrift", "CKSClusterStuckInOperation", "CKSNetworkRuleMissing", "CKSOfferingMissing", "CKSKubectlUnreachable", "CKSDriftCheckFailing",
	"CKSDriftCheckStale", "CKSDriftExporterDown", "CKSDriftExporterAbsent",
	"CKSDriftCheckDisabled", "CKSDriftConfigReloadFailed", "CKSDriftNotificationFailures", "CKSDriftEventSignaturesFailing", "CKSDriftEventsSilent", "CKSDriftShardMissing", "CKSDriftShardMismatch",
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
		{"test", "rules", PreviousTestsFile},
	} {
		t.Run(strings.Join(args[:2], "_")+"_"+args[2], func(t *testing.T) {
			out, err := exec.Command(promtool, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
}

func loadRules(t *testing.T) ([]Rule, File) {
	t.Helper()
	f, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return f.All(), f
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
		for _, a := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("%s: no %s annotation", r.Alert, a)
			}
		}
	}
	if diff := cmp.Diff(wantAlerts, names); diff != "" {
		t.Errorf("alerts (-want +got):\n%s", diff)
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

func TestDocsDescribeEveryAlert(t *testing.T) {
	doc, err := os.ReadFile("../docs/alerting.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range wantAlerts {
		if !strings.Contains(string(doc), "`"+a+"`") {
			t.Errorf("docs/alerting.md does not describe %s", a)
		}
	}
}
