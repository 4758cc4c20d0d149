package exporter

import (
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// MetricNames returns the name of every metric family the exporter can emit, for the tests that
// fail when a rule or a dashboard names a metric that does not exist.
func MetricNames() ([]string, error) {
	families, err := MetricFamilies()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(families))
	for _, f := range families {
		names = append(names, f.GetName())
	}
	sort.Strings(names)
	return names, nil
}

// MetricFamilies gathers a registry like the exporter's over a snapshot in which every series is
// present: every family the exporter can emit, with its type, HELP and labels (docs/metrics.md
// is made from them).
func MetricFamilies() ([]*dto.MetricFamily, error) {
	now := time.Now()
	full := &collector.Snapshot{
		Start: now, End: now, Success: true, Enabled: true, Interval: time.Minute, LastSuccess: now,
		NodeListFailures:   map[string]uint64{"timeout": 1},
		FindingSeriesLimit: 1, // and two findings: cks_drift_finding_series_omitted is present
		Clusters: []collector.ClusterStatus{collector.ClusterStatus{
			Cluster:    collector.Cluster{ID: "k", Name: "k"},
			StateSince: now,
			Accepted:   []collector.AcceptedFinding{{Finding: collector.Finding{Kind: collector.KindVMMapIncomplete}}},
		}.With(collector.Finding{Kind: collector.KindUnmappedVM, VMID: "v"}, collector.Finding{Kind: collector.KindUnmappedVM, VMID: "w"})},
	}
	e := &Exporter{}
	e.snapshot.Store(full)
	e.live = e.newLiveRegistry()
	e.apiMetrics.Init("listKubernetesClusters")
	return e.gatherer().Gather()
}
