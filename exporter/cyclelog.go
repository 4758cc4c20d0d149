package exporter

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"log/slog"
	"maps"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

const cycleSummaryMsg = "Check cycle finished"

// logCycleSummary logs one INFO line with the counts of a cycle: after the first successful
// cycle, so that a healthy exporter says it works, and whenever the counts change. A cloud that
// stays the same logs nothing cycle after cycle.
func logCycleSummary(prev, next *collector.Snapshot, logger *slog.Logger) {
	if !next.Success {
		return // logged as an error by the cycle
	}
	cur := report.New(next, report.Context{}).Summary
	if prev.LastSuccess.IsZero() || !sameCounts(report.New(prev, report.Context{}).Summary, cur) {
		args := []any{"clusters", cur.Clusters, "checked", cur.Checked, "skipped", cur.Skipped,
			"unreachable", cur.Unreachable, "findings", cur.Findings, "duration", next.End.Sub(next.Start).Round(1e6)}
		for _, k := range collector.Kinds {
			if n := cur.ByKind[k]; n > 0 {
				args = append(args, string(k), n)
			}
		}
		logger.Info(cycleSummaryMsg, args...)
	}
}

func sameCounts(a, b report.Summary) bool {
	return a.Clusters == b.Clusters && a.Checked == b.Checked && a.Skipped == b.Skipped &&
		a.Unreachable == b.Unreachable && a.Findings == b.Findings && maps.Equal(a.ByKind, b.ByKind)
}
