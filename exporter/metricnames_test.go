package exporter

import (
	"slices"
	"testing"
)

func TestMetricNamesCoverTheContract(t *testing.T) {
	names, err := MetricNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cks_drift_up", "cks_drift_check_enabled", "cks_drift_check_interval_seconds", "cks_drift_cycle_duration_seconds",
		"cks_drift_last_cycle_success_timestamp_seconds", "cks_drift_cycles_total", "cks_drift_cycle_failures_total",
		"cks_drift_cluster_info", "cks_drift_cluster_checked", "cks_drift_kubectl_reachable", "cks_drift_findings",
		"cks_drift_finding", "cks_drift_notifications_total", "cks_drift_notifications_capped_total",
		"cks_drift_notification_failures_total", "cks_drift_exporter_build_info", "cks_drift_config_last_reload_successful",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("MetricNames() lacks %s", want)
		}
	}
}
