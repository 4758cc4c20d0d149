package promqlcheck

// The checks of the alerting rules that need PromQL parsed; the others are in package rules.

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
	"github.com/google/go-cmp/cmp"
)

// notExporterMetrics may appear in expressions although the exporter does not emit them.
var notExporterMetrics = []string{"up", "time", "ALERTS", "ALERTS_FOR_STATE"}

func loadRules(t *testing.T) []rules.Rule {
	t.Helper()
	f, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	return f.All()
}

func TestExpressionsNameExportedMetrics(t *testing.T) {
	known, err := exporter.MetricNames()
	if err != nil {
		t.Fatal(err)
	}
	known = append(known, notExporterMetrics...)
	all := loadRules(t)
	for _, r := range all {
		sels, err := Parse(r.Expr)
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

// TestDriftAlertsCoverEveryKind ties the kind matchers to the kinds' declarations
// (collector.Declarations): each alert matches exactly the kinds declared with it, with their
// severity.
func TestDriftAlertsCoverEveryKind(t *testing.T) {
	all := loadRules(t)
	kinds := map[string][]string{}
	for _, d := range collector.Declarations {
		kinds[d.Alert] = append(kinds[d.Alert], string(d.Kind))
	}
	for alert, want := range kinds {
		var got []string
		for _, r := range all {
			if r.Alert != alert {
				continue
			}
			sels, err := Parse(r.Expr)
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
			for _, k := range want {
				if d, _ := collector.Kind(k).Declaration(); r.Labels["severity"] != d.Severity {
					t.Errorf("%s: severity %q, but kind %s is declared %q", alert, r.Labels["severity"], k, d.Severity)
				}
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: kinds (-want +got):\n%s", alert, diff)
		}
	}
}
