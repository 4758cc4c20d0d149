package exporter

import (
	"context"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// eventQueue bounds the events received and not yet dispatched; past it an event is counted
// over_budget and left to the next cycle.
const eventQueue = 4096

// seenEvents is how many delivery ids are remembered (events.Seen): CloudStack's tries of one
// delivery come back to back, within seconds.
const seenEvents = 16384

// maxCauses bounds the events kept for one pending re-check.
const maxCauses = 16

// pendingRecheck is a cluster that events asked to re-check, and the events that asked.
type pendingRecheck struct {
	due      time.Time      // the first event's reception plus events.recheck_delay
	received time.Time      // when the first event arrived
	events   []events.Event // at most maxCauses, oldest first
}

// cloudStackEvents serves CloudStack's webhook with the exporter's current secret.
func (e *Exporter) cloudStackEvents() *events.Webhook {
	return &events.Webhook{
		Secret: func() []byte {
			cfg, _ := e.current()
			if !cfg.Events.Webhook.Enabled {
				return nil
			}
			return []byte(cfg.Events.Webhook.SecretKey)
		},
		Seen:    e.seen,
		Deliver: e.receiveEvent,
		Metrics: e.eventMetrics,
		Logger:  e.logger,
		Now:     e.now,
	}
}

// receiveEvent hands an event to dispatchEvents without waiting: the webhook has answered already.
func (e *Exporter) receiveEvent(ev events.Event) {
	select {
	case e.eventCh <- ev:
	default:
		e.eventMetrics.Count(ev.Source, events.OverBudget)
	}
}

// dispatchEvents is the one goroutine that decides what each event starts: it finds the clusters
// the event concerns in the last snapshot, spends their tenant's share of re-checks, and hands the
// clusters to the loop events.recheck_delay after their first event, so that the events of one
// operation make one re-check. It returns when ctx ends.
func (e *Exporter) dispatchEvents(ctx context.Context) {
	var (
		index   *eventIndex
		budget  *recheckBudget
		pending = make(map[string]*pendingRecheck)
		timer   = time.NewTimer(time.Hour)
	)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-e.eventCh:
			cfg, _ := e.current()
			if budget == nil || budget.perMinute != cfg.Events.MaxRechecksPerMinute {
				budget = newRecheckBudget(cfg.Events.MaxRechecksPerMinute)
			}
			if s := e.lastSnapshot(); index == nil || index.snapshot != s {
				index = newEventIndex(s)
			}
			e.eventMetrics.Count(ev.Source, e.dispatch(ev, index.clusters(ev), budget, pending, cfg.Events.RecheckDelay))
		case <-timer.C:
		}
		now := e.now()
		var due []string
		next := time.Time{}
		for id, p := range pending {
			if !p.due.After(now) {
				due = append(due, id)
			} else if next.IsZero() || p.due.Before(next) {
				next = p.due
			}
		}
		if len(due) > 0 {
			batch := make(map[string]*pendingRecheck, len(due))
			for _, id := range due {
				batch[id] = pending[id]
				delete(pending, id)
			}
			e.rechecks.add(batch)
		}
		if !next.IsZero() {
			timer.Reset(next.Sub(now))
		}
	}
}

// dispatch decides what one event starts, and returns its result: accepted when it re-checks a
// cluster (or joins a re-check already pending), ignored when it concerns no cluster, and
// over_budget when every cluster it concerns is past its tenant's share.
func (e *Exporter) dispatch(ev events.Event, clusters []watched, budget *recheckBudget, pending map[string]*pendingRecheck, delay time.Duration) events.Result {
	if len(clusters) == 0 {
		return events.Ignored
	}
	result := events.OverBudget
	for _, w := range clusters {
		p := pending[w.clusterID]
		if p == nil {
			if !budget.take(w.tenant, ev.Received) {
				continue
			}
			p = &pendingRecheck{due: ev.Received.Add(delay), received: ev.Received}
			pending[w.clusterID] = p
		}
		if len(p.events) < maxCauses {
			p.events = append(p.events, ev)
		}
		result = events.Accepted
	}
	return result
}
