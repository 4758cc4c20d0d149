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
)

// at runs the test hook of h, if one is set.
func (e *Exporter) at(h handoff) {
	if f := e.hook.Load(); f != nil {
		(*f)(h)
	}
}

// job is the loop's unit of work: a cycle or a notification pass. One runs at a time, in its
// own goroutine, so that the loop keeps taking requests while it runs.
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
// bridge, and reloads. Requests that arrive while a job runs wait for it. It returns when ctx
// ends, after the job under way.
func (e *Exporter) loop(ctx context.Context) {
	defer close(e.stopped)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var (
		done         chan job // set while a job runs
		wantCycle    bool
		wantAnnounce bool
		wantRecheck  bool
		retired      []sources // replaced by reloads while a job runs: closed when it ends
	)
	for {
		select {
		case <-ctx.Done():
			if done != nil {
				<-done // cancelled with ctx, it ends promptly
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
				if done != nil {
					retired = append(retired, replaced)
				} else {
					closeSources(replaced)
				}
				wantCycle = wantCycle || toggled // on: check at once; off: publish it at once
			}
			e.at(handoffReloaded)
			reply <- err
		case j := <-done:
			done = nil
			closeSources(retired...)
			retired = nil
			if j.cycle {
				timer.Reset(untilNext(j.started, e.now(), j.cfg.Check.Interval))
			}
			e.at(handoffSettled)
		}
		if done != nil {
			continue
		}
		switch {
		case wantCycle:
			wantCycle = false
			timer.Stop()
			done = e.start(ctx, true)
		case wantAnnounce:
			wantAnnounce = false
			done = e.start(ctx, false)
		case wantRecheck:
			wantRecheck = false
			done = e.startRecheck(ctx)
		}
	}
}

// start runs a cycle, or a notification pass, in a goroutine and returns where it reports its end.
func (e *Exporter) start(ctx context.Context, cycle bool) chan job {
	done := make(chan job, 1) // the job never waits for the loop
	cfg, src := e.current()
	var covered map[string]*pendingRecheck
	if cycle {
		covered = e.rechecks.take() // a cycle checks them too
	}
	started := e.now()
	e.at(handoffStarted)
	go func() {
		if cycle {
			e.runCycle(ctx, cfg, src)
			if e.lastSnapshot().Success {
				e.rechecks.observe(covered, e.now())
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

// runCycle runs one cycle with cfg and its back ends, or records that checking is off.
func (e *Exporter) runCycle(ctx context.Context, cfg *config.Config, src sources) {
	if !cfg.Check.Enabled {
		e.markDisabled()
		return
	}
	prev := e.snapshot.Load()
	next := cycle(ctx, prev, cfg, src, e.notifier, e.turns, e.logger, e.now)
	if errors.Is(ctx.Err(), context.Canceled) {
		return // shutting down: a cut cycle is not published
	}
	logInventoryRecovery(prev, next, e.logger)
	logCycleSummary(prev, next, e.logger)
	logSlowRequests(e.apiMetrics.TakeSlow(), e.logger)
	e.publish(next)
	e.ready.Store(true)
	e.at(handoffPublished)
	if next.Success {
		e.forgetPins(next.Clusters)
		e.saveResolved(prev.Resolved, next.Resolved)
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
