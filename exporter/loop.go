package exporter

import (
	"context"
	"errors"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// handoff names a point where work passes from one goroutine to another. Tests hook a delay
// into each of them, to show that no request is lost in the window.
type handoff string

const (
	handoffQueued    handoff = "queued"    // a request was handed to the loop
	handoffStarted   handoff = "started"   // the loop started a job
	handoffPublished handoff = "published" // a cycle published its snapshot; its pins are not written yet
	handoffFinished  handoff = "finished"  // a job is over; the loop has not been told yet
	handoffSettled   handoff = "settled"   // the loop took the end of a job and waits again
	handoffReloaded  handoff = "reloaded"  // the loop applied a reload and has not answered yet

	handoffSwept      handoff = "swept"      // a cycle read and compared the clusters; it has not published yet
	handoffRechecking handoff = "rechecking" // the loop started a re-check; it has not read yet
	handoffRechecked  handoff = "rechecked"  // a re-check read and compared its clusters; it has not published yet
)

// at runs the test hook of h, if one is set.
func (e *Exporter) at(h handoff) {
	if f := e.hook.Load(); f != nil {
		(*f)(h)
	}
}

// job is the loop's unit of work: a cycle, a notification pass or a re-check. Each runs in its own
// goroutine, so that the loop keeps taking requests while it runs: a cycle or a notification pass
// one at a time, and beside a cycle at most one re-check (owner.go keeps their results apart).
type job struct {
	cycle   bool           // a cycle, not a notification pass
	cfg     *config.Config // the configuration of a cycle: the next one is due check.interval after it
	started time.Time      // when the loop started it (e.now)
}

// untilNext is how long the loop waits, at the end of a cycle that started at started, before
// the next one: check.interval is the time between the starts of two cycles, so a cycle that
// waited out cloudstack.timeout does not push the schedule back. A cycle longer than the interval
// is followed by one at once, and only one: the cycles it overran are not caught up. A clock set
// back never makes the wait longer than the interval.
func untilNext(started, ended time.Time, interval time.Duration) time.Duration {
	return min(max(interval-ended.Sub(started), 0), interval)
}

// loop is the one goroutine that owns cycles: it runs a cycle at once and then every
// check.interval (from start to start, untilNext), a cycle asked for by requestCycle or by a
// reload that switches checking on or off, the notification passes asked for by the Alertmanager
// bridge, the re-checks CloudStack's events ask for, and reloads. A re-check runs beside a cycle,
// so that an event is heard within seconds while a sweep of a large cloud takes minutes; a cycle
// or a notification pass asked for while another runs waits for it, and so does a re-check asked
// for while a re-check or a notification pass runs. It returns when ctx ends, after the jobs under
// way.
func (e *Exporter) loop(ctx context.Context) {
	defer close(e.stopped)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var (
		done         chan job // set while a cycle or a notification pass runs
		rechecking   chan job // set while a re-check runs
		cycling      bool     // done is a cycle's
		wantCycle    bool
		wantAnnounce bool
		wantRecheck  bool
		retired      []sources // replaced by reloads while a job runs: closed when none runs
	)
	for {
		select {
		case <-ctx.Done():
			for _, c := range []chan job{done, rechecking} {
				if c != nil {
					<-c // cancelled with ctx, it ends promptly
				}
			}
			closeSources(retired...)
			e.reloadLog.flush() // the reloads it holds are confirmed too
			return
		case <-e.reloadLog.due:
			e.reloadLog.flush()
		case <-timer.C:
			wantCycle = true
		case <-e.trigger:
			wantCycle = true
		case <-e.announce:
			wantAnnounce = true
		case <-e.rechecks.signal:
			wantRecheck = true
		case reply := <-e.reloads:
			replaced, toggled, err := e.applyReload()
			if err == nil {
				if done != nil || rechecking != nil {
					retired = append(retired, replaced)
				} else {
					closeSources(replaced)
				}
				wantCycle = wantCycle || toggled // on: check at once; off: publish it at once
			}
			e.at(handoffReloaded)
			reply <- err
		case j := <-done:
			done, cycling = nil, false
			if j.cycle {
				timer.Reset(untilNext(j.started, e.now(), j.cfg.Check.Interval))
			}
			e.settle(&retired, rechecking == nil)
		case <-rechecking:
			rechecking = nil
			e.settle(&retired, done == nil)
		}
		if done == nil {
			switch {
			case wantCycle:
				wantCycle = false
				timer.Stop()
				done, cycling = e.start(ctx, true), true
			case wantAnnounce && rechecking == nil:
				wantAnnounce = false
				done = e.start(ctx, false)
			}
		}
		if wantRecheck && rechecking == nil && (done == nil || cycling) {
			wantRecheck = false
			rechecking = e.startRecheck(ctx)
		}
	}
}

// settle is the loop's side of the end of a job: the back ends that reloads replaced are closed
// once no job runs (idle).
func (e *Exporter) settle(retired *[]sources, idle bool) {
	if idle {
		closeSources(*retired...)
		*retired = nil
	}
	e.at(handoffSettled)
}

// start runs a cycle, or a notification pass, in a goroutine and returns where it reports its end.
func (e *Exporter) start(ctx context.Context, cycle bool) chan job {
	done := make(chan job, 1) // the job never waits for the loop
	cfg, src := e.current()
	var covered map[string]*pendingRecheck
	if cycle && !e.canRecheck(src) {
		covered = e.rechecks.take() // a cycle checks them instead
	}
	started := e.now()
	var r *reading
	if cycle {
		r = e.owner.begin(started)
	}
	e.at(handoffStarted)
	go func() {
		if cycle {
			e.runCycle(ctx, cfg, src, r)
			if e.lastSnapshot().Success {
				e.rechecks.observe(covered, e.now())
				e.rechecks.nudge() // those kept while no cycle had read can be re-checked now
			} else {
				e.rechecks.keep(covered) // for the next cycle, or a re-check once one has read
			}
		} else {
			e.announcePass(ctx)
		}
		e.at(handoffFinished)
		done <- job{cycle: cycle, cfg: cfg, started: started}
	}()
	return done
}

// runCycle runs one cycle with cfg and its back ends, or records that checking is off; r is its
// read of the clusters, whose results commit merges with a re-check's published meanwhile.
func (e *Exporter) runCycle(ctx context.Context, cfg *config.Config, src sources, r *reading) {
	if !cfg.Check.Enabled {
		e.owner.end(r)
		e.markDisabled()
		return
	}
	prev := e.snapshot.Load()
	next := cycle(ctx, prev, cfg, src, e.notifier, e.turns, e.logger, e.now)
	if errors.Is(ctx.Err(), context.Canceled) {
		e.owner.end(r)
		return // shutting down: a cut cycle is not published
	}
	logInventoryRecovery(prev, next, e.logger)
	logCycleSummary(prev, next, e.logger)
	logSlowRequests(e.apiMetrics.TakeSlow(), e.logger)
	read := collector.Read{Sweep: next.Success}
	if next.Success {
		read.Statuses = next.Clusters
	}
	e.at(handoffSwept)
	published := e.commit(ctx, r, read, func(*collector.Snapshot) (*collector.Snapshot, bool) { return next, true })
	e.ready.Store(true)
	e.at(handoffPublished)
	if next.Success {
		e.forgetPins(published.Clusters)
	}
}

// msgPinsFailing is logged when the pinned host keys of deleted clusters cannot be dropped.
const msgPinsFailing = "Could not update the state file"

// forgetPins drops the pinned host keys of clusters that no longer exist: a new cluster may get
// the same address and must not be refused for another cluster's key.
func (e *Exporter) forgetPins(clusters []collector.ClusterStatus) {
	present := make(map[string]bool, len(clusters))
	for _, c := range clusters {
		present[c.Cluster.ID] = true
	}
	err := e.store.ForgetHostKeys(func(id string) bool {
		return present[ssh.PinCluster(id)]
	})
	switch {
	case err != nil && !e.pinsFailing: // once, not every cycle while the file stays unwritable
		e.logger.Error(msgPinsFailing, "file", e.store.Path(), "err", err)
	case err == nil && e.pinsFailing:
		e.logger.Info("The state file is written again", "file", e.store.Path())
	}
	e.pinsFailing = err != nil
}
