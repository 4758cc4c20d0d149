package exporter

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// TestCauseTypesAreWatched: every event type that explains a kind's finding
// (collector.Declaration.Causes) is one the event bus is bound to (events.WatchedTypes), so that
// the event that causes a finding also re-checks its cluster at once. The two lists are written
// apart (the events package imports no collector); this holds them together.
func TestCauseTypesAreWatched(t *testing.T) {
	t.Parallel()
	for _, d := range collector.Declarations {
		for _, typ := range d.Causes.Types {
			if !slices.Contains(events.WatchedTypes, typ) {
				t.Errorf("%s is explained by %s, which events.WatchedTypes leaves out", d.Kind, typ)
			}
		}
	}
}
