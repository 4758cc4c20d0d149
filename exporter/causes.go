package exporter

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// CauseFinder looks up the CloudStack events that explain new findings (the API and the database
// sources): causes[i] is wants[i]'s, zero where no event explains it.
type CauseFinder interface {
	Causes(ctx context.Context, wants []collector.CauseWant) ([]collector.Cause, error)
}

// RuleCauseFinder is a CauseFinder that also finds the event that deleted a network rule
// (collector.CauseOnRule), which it asks for by the id of the event that started a re-check: the
// API source. Another finder is never asked for one.
type RuleCauseFinder interface {
	CauseFinder
	FindsRuleCauses()
}

// causeTimeout bounds the look-ups of one cycle or re-check: the announcement of its new
// findings waits for them at most this long, and the findings not looked up by then are
// announced without a cause.
const causeTimeout = 10 * time.Second

// findCauses gives the findings of statuses their causes: the cause the last snapshot (prev) or
// the announcer's memory holds for a finding, and for at most collector.MaxCauseLookups new ones
// (first seen at now) the event the source finds, trying first the events that started the check
// (triggers, nil for a cycle). It runs before the findings are announced, and only where they
// are (not --once, whose announcer is nil: its one cycle reads what the check needs and no more).
func findCauses(ctx context.Context, statuses, prev []collector.ClusterStatus, src sources, announcer Announcer, triggers []events.Event, now time.Time, logger *slog.Logger) {
	if announcer == nil {
		return
	}
	collector.CarryCauses(statuses, prev, announcer.Cause)
	finder, ok := src.inventory.(CauseFinder)
	if !ok {
		return
	}
	var rulesOf []collector.ClusterStatus // the database source cannot ask for an event by id
	if _, ok := finder.(RuleCauseFinder); ok {
		rulesOf = prev
	}
	wants := collector.WantCauses(statuses, rulesOf, now, collector.MaxCauseLookups, triggerIDs(triggers))
	if len(wants) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, causeTimeout)
	defer cancel()
	causes, err := finder.Causes(ctx, wants)
	if err != nil {
		logger.Warn("Could not look up the CloudStack events that explain new findings; they are announced without them",
			"findings", len(wants), "err", err)
	}
	collector.SetCauses(statuses, wants, causes)
}

// triggerIDs returns, for a resource's uuid and the event types that can explain a finding, the
// ids of the events of batch of one of the types that name the resource (as their entity or an
// entity of their call), newest first; nil when no event has an id (the event bus delivers none).
func triggerIDs(batch []events.Event) func(resourceID string, types []string) []string {
	type trigger struct{ id, eventType string }
	byResource := make(map[string][]trigger)
	for i := len(batch) - 1; i >= 0; i-- {
		e := batch[i]
		if e.ID == "" {
			continue
		}
		named := map[string]bool{e.EntityID: true}
		for _, id := range e.Resources {
			named[id] = true
		}
		for id := range named {
			if id != "" {
				byResource[id] = append(byResource[id], trigger{e.ID, e.Type})
			}
		}
	}
	if len(byResource) == 0 {
		return nil
	}
	return func(resourceID string, types []string) []string {
		var out []string
		for _, t := range byResource[resourceID] {
			if slices.Contains(types, t.eventType) {
				out = append(out, t.id)
			}
		}
		return out
	}
}
