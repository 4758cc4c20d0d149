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

// saveResolved writes the history when the cycle changed it, or when the last write failed (so
// that a history the file could not take is written as soon as it can be). A failing write is
// logged once, not every cycle while the file stays unwritable, and the first write that works
// again says so.
func (e *Exporter) saveResolved(prev, next []collector.Resolved) {
	if !e.historyFailing && slices.EqualFunc(prev, next, func(a, b collector.Resolved) bool {
		return a.ClusterID == b.ClusterID && a.Key() == b.Key() && a.ResolvedAt.Equal(b.ResolvedAt)
	}) {
		return
	}
	doc, err := json.Marshal(next)
	if err == nil {
		err = e.store.SaveResolved(doc)
	}
	switch {
	case err != nil && !e.historyFailing:
		e.logger.Error(msgHistoryFailing, "file", e.store.Path(), "err", err)
	case err == nil && e.historyFailing:
		e.logger.Info(msgHistoryWritten, "file", e.store.Path())
	}
	e.historyFailing = err != nil
}

// The lines of a history that cannot be written, and of the first write that works again.
const (
	msgHistoryFailing = "Could not write the history of resolved findings to the state file"
	msgHistoryWritten = "The history of resolved findings is written to the state file again"
)
