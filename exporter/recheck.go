package exporter

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// rechecks are the clusters events asked to re-check that the loop has not taken yet: the
// dispatcher adds to them, the loop takes them all at once. A cluster asked for again before
// the loop takes it keeps its first event's time and gains the new events.
type rechecks struct {
	mu      sync.Mutex
	pending map[string]*pendingRecheck
	signal  chan struct{} // one slot: the loop has something to take

	count   prometheus.Counter   // cks_drift_rechecks_total
	latency prometheus.Histogram // cks_drift_event_to_publish_seconds
}

func newRechecks() *rechecks {
	return &rechecks{
		pending: make(map[string]*pendingRecheck),
		signal:  make(chan struct{}, 1),
		count: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_rechecks_total",
			Help: "Clusters re-checked because CloudStack's events named them.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "cks_drift_event_to_publish_seconds",
			Help:    "Time from receiving a CloudStack event to publishing the snapshot of the check it started.",
			Buckets: []float64{0.5, 1, 2, 3, 5, 10, 30, 60, 120, 300},
		}),
	}
}

// add hands batch to the loop.
func (r *rechecks) add(batch map[string]*pendingRecheck) {
	r.mu.Lock()
	for id, p := range batch {
		if have := r.pending[id]; have != nil {
			have.events = append(have.events, p.events...)[:min(len(have.events)+len(p.events), maxCauses)]
			continue
		}
		r.pending[id] = p
	}
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// nudge tells the loop again of the re-checks it has not taken, if there are any.
func (r *rechecks) nudge() {
	r.mu.Lock()
	waiting := len(r.pending) > 0
	r.mu.Unlock()
	if waiting {
		select {
		case r.signal <- struct{}{}:
		default:
		}
	}
}

// keep gives back a batch the loop took and could not re-check: the next cycle takes it.
func (r *rechecks) keep(batch map[string]*pendingRecheck) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, p := range batch {
		if r.pending[id] == nil {
			r.pending[id] = p
		}
	}
}

// observe records, for each cluster of batch, the time from its first event to now, when its
// re-check or the cycle that covered it was published.
func (r *rechecks) observe(batch map[string]*pendingRecheck, now time.Time) {
	for _, p := range batch {
		r.latency.Observe(now.Sub(p.received).Seconds())
	}
}

// take returns every pending re-check and forgets them.
func (r *rechecks) take() map[string]*pendingRecheck {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = make(map[string]*pendingRecheck)
	return out
}

// ClusterReader reads one cluster again, with its owner's VMs (the API source); a source without
// it (the database) has events start a whole cycle instead.
type ClusterReader interface {
	ClusterInventory(ctx context.Context, c collector.Cluster) (collector.Inventory, error)
}

// canRecheck reports whether events' clusters can be re-checked one by one: the source reads one
// cluster (ClusterReader) and a cycle has read the inventory to start from. Otherwise a cycle
// checks them instead.
func (e *Exporter) canRecheck(src sources) bool {
	_, ok := src.inventory.(ClusterReader)
	return ok && e.lastSnapshot().Success
}

// startRecheck re-checks, in a goroutine, the clusters events asked for, and returns where it
// reports its end. It may run beside a cycle: each reads at its own time (owner.begin), and the
// later read of a cluster wins when they publish (commit).
func (e *Exporter) startRecheck(ctx context.Context) chan job {
	done := make(chan job, 1)
	cfg, src := e.current()
	batch := e.rechecks.take()
	r := e.owner.begin(e.now())
	e.at(handoffRechecking)
	go func() {
		e.runRecheck(ctx, cfg, src, batch, r)
		e.at(handoffFinished)
		done <- job{}
	}()
	return done
}

// runRecheck re-checks the clusters of batch and publishes the result. Without a snapshot to
// start from, or with a source that cannot read one cluster, the next cycle does it instead.
func (e *Exporter) runRecheck(ctx context.Context, cfg *config.Config, src sources, batch map[string]*pendingRecheck, r *reading) {
	if len(batch) == 0 || !cfg.Check.Enabled {
		e.owner.end(r)
		return
	}
	prev := e.snapshot.Load()
	reader, ok := src.inventory.(ClusterReader)
	if !ok || !prev.Success {
		e.owner.end(r)
		e.rechecks.keep(batch)
		e.requestCycle()
		return
	}
	ids := slices.Sorted(maps.Keys(batch))
	var triggers []events.Event
	for _, id := range ids {
		triggers = append(triggers, batch[id].events...)
	}
	read := recheck(ctx, prev, cfg, src, reader, ids, triggers, e.notifier, e.logger, r.at)
	if errors.Is(ctx.Err(), context.Canceled) {
		e.owner.end(r)
		return
	}
	e.at(handoffRechecked)
	published := e.commit(ctx, r, read, func(cur *collector.Snapshot) (*collector.Snapshot, bool) {
		return carry(cur), cur.Enabled // checking switched off meanwhile: "disabled" stays
	})
	if published == nil {
		e.rechecks.keep(batch) // for the cycle once checking is on again
		return
	}
	e.rechecks.count.Add(float64(len(read.Statuses)))
	e.rechecks.observe(batch, e.now())
}

// recheck reads the clusters of ids again at start and returns what it read, announced by
// commit as a cycle's is; triggers are the events that asked for it, tried first as the causes
// of its new findings. A cluster that cannot be read is left out (the next cycle reads it); one
// that no longer exists is gone, as a cycle drops it.
func recheck(ctx context.Context, prev *collector.Snapshot, cfg *config.Config, src sources, reader ClusterReader, ids []string, triggers []events.Event, announcer Announcer, logger *slog.Logger, start time.Time) collector.Read {
	before := make(map[string]collector.ClusterStatus, len(prev.Clusters))
	for _, s := range prev.Clusters {
		before[s.Cluster.ID] = s
	}
	var inv collector.Inventory
	only, gone := make(map[string]bool), make(map[string]bool)
	vms := make(map[string]bool)
	for _, id := range ids {
		p, known := before[id]
		if !known {
			continue // deleted meanwhile, or another shard's
		}
		got, err := reader.ClusterInventory(ctx, p.Cluster)
		if err != nil {
			logger.Debug("Could not re-check the cluster an event named; the next cycle checks it", "cluster", p.Cluster.Name, "cluster_id", id, "err", err)
			continue
		}
		i := slices.IndexFunc(got.Clusters, func(c collector.Cluster) bool { return c.ID == id })
		if i < 0 {
			gone[id] = true
			continue
		}
		only[id] = true
		inv.Clusters = append(inv.Clusters, got.Clusters[i])
		for _, vm := range got.VMs {
			if !vms[vm.ID] {
				vms[vm.ID] = true
				inv.VMs = append(inv.VMs, vm)
			}
		}
	}
	for _, s := range prev.Clusters { // as last seen: their maps still count as mapped
		if !only[s.Cluster.ID] && !gone[s.Cluster.ID] {
			inv.Clusters = append(inv.Clusters, s.Cluster)
		}
	}
	shard := collector.Shard{Ordinal: cfg.Check.Shard, Total: cfg.Check.TotalShards}
	var listed []collector.Cluster
	checked, _ := collector.Plan(inv, shard)
	for _, c := range checked {
		if only[c.ID] {
			listed = append(listed, c)
		}
	}
	nodes := listNodes(ctx, listed, src.nodes, src.listed, cfg.Check.Concurrency, slowAfter(cfg), logger)
	var states collector.StateMemory
	var firstSeen collector.FirstSeenMemory
	if announcer != nil {
		states, firstSeen = announcer.StateSince, announcer.FirstSeen
	}
	some := collector.EvaluateSome(prev.Clusters, inv, only, nodes, start, cfg.Check.GracePeriod, shard, firstSeen)
	if announcer != nil {
		collector.RestoreSkipped(some, prev.Clusters, announcer.Announced)
	}
	collector.MarkStates(some, prev.Clusters, states, firstSeen, start, cfg.Check.StuckAfter)
	findCauses(ctx, some, prev.Clusters, src, announcer, triggers, start, logger)
	fresh := inv.Clusters[:len(only)]
	some, _ = collector.Accept(some, fresh, cfg.Rules(), start)
	logReachability(prev.Clusters, some, summarized{}, nodeTarget(src.nodes), logger)
	return collector.Read{Statuses: some, Gone: gone}
}
