package rules

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/previousrelease"
)

// notFromThePreviousRelease are the alerts PreviousTestsFile need not fire, with why.
var notFromThePreviousRelease = map[string]string{
	"CKSClusterStuckInOperation":     "the previous release does not find stuck_in_operation",
	"CKSNetworkRuleMissing":          "the previous release does not find network_rule_missing",
	"CKSOfferingMissing":             "the previous release does not find offering_missing",
	"CKSDriftExporterDown":           "Prometheus's own up series, the same for every release",
	"CKSDriftExporterAbsent":         "Prometheus's own up series, the same for every release",
	"CKSDriftEventSignaturesFailing": "the previous release hears no CloudStack events",
	"CKSDriftEventsSilent":           "the previous release hears no CloudStack events",
}

// previousMetrics returns the metric names the exporter of the previous release exports, read
// from its source at the commit packaging/upgrade-from names: the collector's desc("name", ...)
// (with the cks_drift_ namespace), every Name: "cks_drift_..." of a client_golang metric, and
// the build information of version.NewCollector.
func previousMetrics(t *testing.T) []string {
	t.Helper()
	git := requireTool(t, "git", "apt-get install git")
	commit := previousrelease.Commit(t, git)
	out, err := exec.Command(git, "-C", "..", "grep", "-hoE", `desc\("[a-z_]+"|Name: +"cks_drift_[a-z_]+"|NewCollector\("cks_drift_[a-z_]+"`,
		commit, "--", "*.go", ":!*_test.go").Output()
	if err != nil {
		t.Fatalf("git grep %s: %v", commit, err)
	}
	name := regexp.MustCompile(`"([a-z_]+)"`)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		n := name.FindStringSubmatch(line)[1]
		switch {
		case strings.HasPrefix(line, "desc("):
			n = "cks_drift_" + n
		case strings.HasPrefix(line, "NewCollector("):
			n += "_build_info"
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if !slices.Contains(names, "cks_drift_up") || !slices.Contains(names, "cks_drift_finding") || len(names) < 20 {
		t.Fatalf("the metric names read from %s look wrong: %v", commit, names)
	}
	return names
}

// TestRulesWithThePreviousRelease: PreviousTestsFile feeds the rules only series the previous
// release's exporters export (and Prometheus's up), and fires every alert but those that
// cannot come from that release, so that rules upgraded before the exporters keep working.
func TestRulesWithThePreviousRelease(t *testing.T) {
	known := append(previousMetrics(t), "up")
	b, err := FS.ReadFile(PreviousTestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var alerts testFile
	var series struct {
		Tests []struct {
			InputSeries []struct {
				Series string `yaml:"series"`
			} `yaml:"input_series"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(b, &alerts); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &series); err != nil {
		t.Fatal(err)
	}
	metric := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)
	for _, tc := range series.Tests {
		for _, s := range tc.InputSeries {
			if m := metric.FindString(s.Series); !slices.Contains(known, m) {
				t.Errorf("%s: series %s: the previous release does not export %q", PreviousTestsFile, s.Series, m)
			}
		}
	}
	fired := map[string]bool{}
	for _, tc := range alerts.Tests {
		for _, a := range tc.AlertRuleTests {
			if len(a.ExpAlerts) > 0 {
				fired[a.Alertname] = true
			}
		}
	}
	for _, a := range wantAlerts {
		if _, why := notFromThePreviousRelease[a]; !fired[a] && !why {
			t.Errorf("%s never fires %s", PreviousTestsFile, a)
		}
	}
}

// TestCheckStaleDefaultInterval: CKSDriftCheckStale's interval for exporters that do not report
// cks_drift_check_interval_seconds is check.interval's default.
func TestCheckStaleDefaultInterval(t *testing.T) {
	all, _ := loadRules(t)
	want := fmt.Sprintf("+ %d\n", int(config.Defaults().Check.Interval.Seconds()))
	for _, r := range all {
		if r.Alert == "CKSDriftCheckStale" && !strings.Contains(r.Expr, want) {
			t.Errorf("CKSDriftCheckStale does not fall back to %q:\n%s", strings.TrimSpace(want), r.Expr)
		}
	}
}
