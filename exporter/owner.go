package exporter

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// owner is the one owner of the clusters' published state. A sweep and a re-check may run at
// once (loop.go); each reads its clusters at its own time and publishes through commit, which
// merges what it read into the snapshot published meanwhile, keeping per cluster the later read
// (collector.Merge), announces the result and publishes it, all under one lock: the notifier
// never sees an older read of a cluster after a newer one.
type owner struct {
	publishing sync.Mutex // held over merge, Notify and publish

	mu      sync.Mutex
	last    time.Time            // the last read time handed out
	running map[*reading]bool    // the reads whose jobs may still publish
	deleted map[string]time.Time // clusters found deleted, by read time, while an older read runs
}

// reading is one job's read of the clusters: its time orders it against the other job's.
type reading struct{ at time.Time }

func newOwner() *owner {
	return &owner{running: make(map[*reading]bool), deleted: make(map[string]time.Time)}
}

// begin starts a read at now: read times are handed out in the order of the jobs' starts, each
// later than the one before, even on a clock that stands still or goes back.
func (o *owner) begin(now time.Time) *reading {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !now.After(o.last) {
		now = o.last.Add(time.Nanosecond)
	}
	o.last = now
	r := &reading{at: now}
	o.running[r] = true
	return r
}

// end forgets a read whose job is over, published or not, and the deletions no running read is
// older than: they can no longer be undone.
func (o *owner) end(r *reading) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.running, r)
	for id, at := range o.deleted {
		needed := false
		for other := range o.running {
			if other.at.Before(at) {
				needed = true
				break
			}
		}
		if !needed {
			delete(o.deleted, id)
		}
	}
}

// merge merges read into cur's clusters (collector.Merge) with the deletions of other reads.
func (o *owner) merge(cur []collector.ClusterStatus, read collector.Read) []collector.ClusterStatus {
	o.mu.Lock()
	defer o.mu.Unlock()
	return collector.Merge(cur, read, o.deleted)
}

// commit publishes what the job of r read: build builds the snapshot to publish from the one
// published meanwhile (its clusters merged with read, its resolved history not yet updated) and
// returns false to publish nothing. The merged statuses are announced (unless read is a failed
// sweep's, which read nothing) and the history of resolved findings updated, all under the owner's
// lock. It returns the snapshot published, or nil.
func (e *Exporter) commit(ctx context.Context, r *reading, read collector.Read, build func(cur *collector.Snapshot) (*collector.Snapshot, bool)) *collector.Snapshot {
	defer e.owner.end(r)
	e.owner.publishing.Lock()
	defer e.owner.publishing.Unlock()
	cur := e.snapshot.Load()
	next, ok := build(cur)
	if !ok {
		return nil
	}
	read.At = r.at
	read.Statuses = slices.Clone(read.Statuses)
	for i := range read.Statuses {
		read.Statuses[i].ReadAt = r.at
	}
	next.Clusters = e.owner.merge(cur.Clusters, read)
	next.Resolved = cur.Resolved
	if len(read.Statuses) > 0 || read.Sweep || len(read.Gone) > 0 {
		if e.notifier != nil {
			e.notifier.Notify(ctx, next.Clusters)
		}
		next.Resolved = collector.RecordResolved(cur.Resolved, cur.Clusters, next.Clusters, read.At)
		e.saveResolved(cur.Resolved, next.Resolved)
	}
	e.publish(next)
	return next
}
