package notifier

import (
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestSummaryWords: the capped summary counts by kind, with the words that agree with each
// count, and ends with its kinds' advice: a capped node_version_mismatch is no "finding of VM map
// drift", and a cap of 1 is "at most 1 alert".
func TestSummaryWords(t *testing.T) {
	const where = "/findings on the cks-drift-exporter"
	version, _ := collector.KindNodeVersionMismatch.Declaration()
	tests := []struct {
		name   string
		capped map[string]*cappedCount
		limit  int
		want   string
	}{
		{"one finding, a cap of one", map[string]*cappedCount{"c1": {Name: "prod", Account: "acme", Count: 1,
			Kinds: map[collector.Kind]int{collector.KindNodeVersionMismatch: 1}}}, 1,
			"1 more new finding (1 node_version_mismatch) was not alerted one by one (at most 1 alert per cycle). It is logged and annotated on its cluster; see " + where +
				" for every finding. By cluster: c1 (prod, account acme): 1. This is only reported, nothing was changed. " + version.Advice},
		{"two kinds, two clusters", map[string]*cappedCount{
			"c1": {Name: "prod", Account: "acme", Count: 2, Kinds: map[collector.Kind]int{collector.KindNodeVersionMismatch: 2}},
			"c2": {Name: "dev", Account: "acme", Count: 1, Kinds: map[collector.Kind]int{collector.KindUnmappedVM: 1}}}, 5,
			"3 more new findings (2 node_version_mismatch, 1 unmapped_vm) were not alerted one by one (at most 5 alerts per cycle). They are logged and annotated on their clusters; see " + where +
				" for every finding. By cluster: c1 (prod, account acme): 2; c2 (dev, account acme): 1. This is only reported, nothing was changed. " + mixedAdvice},
		// A summary an older release wrote to the state file counts no kinds.
		{"no kinds known", map[string]*cappedCount{"c1": {Name: "prod", Count: 2}}, 5,
			"2 more new findings were not alerted one by one (at most 5 alerts per cycle). They are logged and annotated on their clusters; see " + where +
				" for every finding. By cluster: c1 (prod): 2. This is only reported, nothing was changed. " + mixedAdvice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summaryDescription(tt.capped, tt.limit, "")
			if got != tt.want {
				t.Errorf("summary\n got %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, "VM map drift") {
				t.Errorf("summary %q speaks of VM map drift", got)
			}
		})
	}
}

// TestAnnotationSummaryWords: the annotations that sum up what a cluster's caps kept back agree
// with their counts.
func TestAnnotationSummaryWords(t *testing.T) {
	if got, want := annotationSummary("prod", 1, 1, ""), "[WARN] 1 more new finding on Kubernetes cluster prod was not annotated one by one (at most 1 annotation per cluster and cycle); it is logged, and listed in /findings on the cks-drift-exporter"; got != want {
		t.Errorf("annotationSummary\n got %q\nwant %q", got, want)
	}
	if got, want := dayBudgetSummary("prod", 3, 20, ""), "[WARN] 3 more new findings on Kubernetes cluster prod were not annotated or alerted one by one (at most 20 annotations and alerts per cluster in 24 hours); they are logged, and listed in /findings on the cks-drift-exporter"; got != want {
		t.Errorf("dayBudgetSummary\n got %q\nwant %q", got, want)
	}
}
