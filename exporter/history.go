package exporter

import (
	"encoding/json"
	"slices"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The history of recently resolved findings (collector.RecordResolved) is kept in the state file,
// so that the status page still shows what cleared before a restart. It is only shown, never
// acted on: a history that cannot be read or written is logged and started afresh, and the
// exporter runs on.

// loadResolved reads the history that the state file keeps; nil when there is none or it cannot
// be read.
func (e *Exporter) loadResolved() []collector.Resolved {
	doc, err := e.store.LoadResolved()
	if err != nil || doc == nil {
		if err != nil {
			e.logger.Warn("Could not read the history of resolved findings from the state file, starting it afresh", "file", e.store.Path(), "err", err)
		}
		return nil
	}
	var history []collector.Resolved
	if err := json.Unmarshal(doc, &history); err != nil {
		e.logger.Warn("Could not read the history of resolved findings from the state file, starting it afresh", "file", e.store.Path(), "err", err)
		return nil
	}
	// A file written by another version may hold more; the next cycle's RecordResolved applies
	// the bound per cluster and forgets clusters that are gone.
	if len(history) > collector.MaxResolved {
		history = history[:collector.MaxResolved]
	}
	return history
}

// saveResolved writes the history when the cycle changed it.
func (e *Exporter) saveResolved(prev, next []collector.Resolved) {
	if slices.EqualFunc(prev, next, func(a, b collector.Resolved) bool {
		return a.ClusterID == b.ClusterID && a.Key() == b.Key() && a.ResolvedAt.Equal(b.ResolvedAt)
	}) {
		return
	}
	doc, err := json.Marshal(next)
	if err == nil {
		err = e.store.SaveResolved(doc)
	}
	if err != nil {
		e.logger.Error("Could not write the history of resolved findings to the state file", "file", e.store.Path(), "err", err)
	}
}
