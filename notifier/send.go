package notifier

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/workers"
)

// plan lists the calls owed, in a stable order, and applies the caps. Findings past
// MaxAlertsPerCycle in the window, or past their cluster's share of the alert types, are still
// annotated, but their alert is replaced by one summary alert (pickAlerts hands out the cap in
// turns); findings of a cluster past MaxAnnotationsPerCluster in the window are not annotated one
// by one, but counted in one summary annotation on the cluster; those past the cluster's 24-hour
// budget are neither annotated nor alerted (daybudget.go). Its cost is linear in the findings
// (apart from sorting them): alert types are picked against one set of the types in use.
func (n *Notifier) plan() []job {
	s := &n.state
	n.openWindow()
	s.closeSummary(n.opts.Types.summaryType())
	var jobs []job
	for _, t := range s.Archive {
		jobs = append(jobs, job{kind: jobArchive, alertType: t})
	}
	used := s.typesInUse()
	pick := n.pickAlerts(n.opts.MaxAlertsPerCycle - n.window.alerts)
	for _, id := range s.sortedClusters() {
		cs := s.Clusters[id]
		left := n.annotationsLeft(id)
		dayLeft := n.dayLeft(id) - pick.perDayUse[id] // the picked alerts have their place already
		more, overDay := 0, 0
		// annotate plans an annotation, and says why not when it cannot: the cluster's budget of
		// the day, or its cap of the window.
		annotate := func(j job) (sent, overBudget bool) {
			switch {
			case dayLeft <= 0:
				return false, true
			case left == 0:
				return false, false
			}
			left--
			dayLeft--
			n.window.annotations[id]++
			jobs = append(jobs, j)
			return true, false
		}
		for _, side := range collector.Sides {
			ss := cs.Sides[side]
			if ss == nil {
				continue
			}
			if ss.Resolution != nil && !ss.Resolution.Done {
				annotate(job{kind: jobResolution, clusterID: id, side: side}) // past a cap it waits for room
			}
			for _, key := range sortedKeys(ss.Findings) {
				a := ss.Findings[key]
				over := false
				if !a.Annotation.Done {
					sent, overBudget := annotate(job{kind: jobFindingAnnotation, clusterID: id, side: side, key: key})
					switch {
					case overBudget:
						a.Annotation.Done, a.AnnotationCapped = true, true
						over = true
					case !sent:
						a.Annotation.Done, a.AnnotationCapped = true, true
						more++
						n.metrics.annotationsCapped.Inc()
					}
				}
				if !a.Alert.Done {
					switch {
					case pick.overDay[a]:
						a.Alert.Done, a.Capped = true, true
						over = true
					case pick.send[a] && n.planAlert(a, used, id, key):
						jobs = append(jobs, job{kind: jobFindingAlert, clusterID: id, side: side, key: key})
					default:
						a.Alert.Done, a.Capped, a.Summarized = true, true, true
						n.summary[id]++
						n.metrics.capped.Inc()
					}
				}
				if over {
					overDay++
					n.metrics.overDay.Inc()
				}
			}
		}
		if j, ok := n.planSummary(cs, id, more, overDay, dayLeft); ok {
			jobs = append(jobs, j)
		}
	}
	if len(n.summary) > 0 {
		n.logCapped()
		s.newSummary(n.opts.MaxAlertsPerCycle)
	}
	return jobs
}

// planAlert gives a picked finding its alert type, if it has none yet, and counts its alert in
// the window; false when every type is in use.
func (n *Notifier) planAlert(a *announcement, used map[int]bool, clusterID, key string) bool {
	if a.AlertType == 0 {
		a.AlertType = allocate(n.opts.Types, used, clusterID, key)
	}
	if a.AlertType == 0 {
		return false
	}
	n.window.alerts++
	return true
}

// send makes the calls, the clusters' at once (see workers.ForEach). A part attempted before, whose
// outcome is unknown, is first looked up in CloudStack; every part is marked attempted in the
// saved state before its call, so that a crash in between never leads to a second annotation or
// alert.
func (n *Notifier) send(ctx context.Context, jobs []job) {
	now := n.now()
	archives, clusters := byCluster(jobs)
	todo := make([][]job, len(clusters))
	workers.ForEach(ctx, n.opts.Concurrency, len(clusters), func(i int) { todo[i] = n.unsent(ctx, clusters[i]) })
	if ctx.Err() != nil {
		return // what the look-ups learnt is kept; nothing is marked that will not be sent
	}
	for _, js := range todo {
		for _, j := range js {
			if p := n.part(j); p != nil {
				p.Attempted = now
			}
		}
	}
	sendSummary := n.state.Summary != nil && !n.state.Summary.Part.Done && (!n.opts.FromAlertmanager || !n.window.summary)
	if sm := n.state.Summary; sendSummary {
		sm.Description = summaryDescription(sm.Capped, sm.Limit, n.opts.FindingsURL)
		sm.Part.Attempted = now
	}
	if !n.save() {
		// The attempts are not on disk: a call made now would be made again after a restart.
		// Everything stays owed until the state file can be written.
		return
	}
	workers.ForEach(ctx, n.opts.Concurrency, len(archives), func(i int) { n.do(ctx, archives[i]) })
	workers.ForEach(ctx, n.opts.Concurrency, len(todo), func(i int) {
		for _, j := range todo[i] {
			if ctx.Err() != nil {
				return
			}
			n.do(ctx, j)
		}
	})
	if sendSummary {
		n.window.summary = true
		n.sendSummary(ctx)
	}
	n.state.settle(n.opts, false) // drop resolutions now done
}

// unsent returns the jobs of one cluster still to send: a part attempted before is looked up in
// CloudStack first, and left for the next cycle when CloudStack cannot say whether it got
// through (never resent blindly).
func (n *Notifier) unsent(ctx context.Context, jobs []job) []job {
	var todo []job
	for _, j := range jobs {
		var attempted time.Time
		n.locked(func() {
			if p := n.part(j); p != nil {
				attempted = p.Attempted
			}
		})
		if attempted.IsZero() {
			todo = append(todo, j)
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		accepted, known := n.alreadyAccepted(ctx, j, attempted)
		switch {
		case accepted:
			n.locked(func() {
				n.part(j).Done, n.part(j).At = true, attempted
				n.spent(j.clusterID, j.pastDay)
			})
		case known:
			todo = append(todo, j)
		}
	}
	return todo
}

// alreadyAccepted asks CloudStack whether an earlier attempt of the job got through; known is
// false when CloudStack could not say.
func (n *Notifier) alreadyAccepted(ctx context.Context, j job, since time.Time) (accepted, known bool) {
	var annotation, description string
	var alertType int
	n.locked(func() { annotation, description, alertType, _ = n.texts(j) })
	var ok bool
	var err error
	switch j.kind {
	case jobFindingAlert:
		ok, err = n.cs.AlertStored(ctx, alertType, description)
	default: // an annotation: an archive job is never looked up
		ok, err = n.cs.HasAnnotation(ctx, j.clusterID, annotation, since.Add(-time.Minute))
	}
	if err != nil {
		n.locked(func() {
			n.metrics.failures.Inc()
			n.fail("look up an earlier attempt", err)
		})
		return false, false
	}
	return ok, true
}

// do makes one job's call outside the lock and records its outcome under it.
func (n *Notifier) do(ctx context.Context, j job) {
	op := j.op()
	var call func() error
	n.locked(func() {
		if !n.isPaused(op) { // refused for lack of permission: tried again after permissionRetry
			call = n.call(ctx, j)
		}
	})
	if call == nil {
		return
	}
	err := call()
	n.locked(func() {
		if err != nil {
			n.metrics.failures.Inc()
			n.fail(op, err)
			return
		}
		n.ok(op)
		n.accepted(j)
	})
}

// call returns a job's CloudStack call, with its texts read from the state now.
func (n *Notifier) call(ctx context.Context, j job) func() error {
	switch j.kind {
	case jobArchive:
		return func() error { return n.cs.ArchiveAlerts(ctx, j.alertType) }
	case jobFindingAlert:
		_, description, alertType, _ := n.texts(j)
		zoneID := n.state.Clusters[j.clusterID].ZoneID
		return func() error { return n.storeAlert(ctx, alertType, zoneID, description) }
	}
	annotation, _, _, _ := n.texts(j)
	return func() error { return n.cs.AddAnnotation(ctx, j.clusterID, annotation) }
}

// accepted records a job CloudStack accepted.
func (n *Notifier) accepted(j job) {
	if j.kind == jobArchive {
		n.state.Archive = removeInt(n.state.Archive, j.alertType)
		return
	}
	p := n.part(j)
	p.Done, p.At = true, n.now()
	n.spent(j.clusterID, j.pastDay)
	if j.kind == jobFindingAlert {
		_, _, _, kind := n.texts(j)
		n.metrics.sent.WithLabelValues(string(kind)).Inc()
	}
}

// storeAlert raises an alert and checks that CloudStack stored it: an un-archived alert of the
// same type and zone makes CloudStack drop it while answering success, so a dropped alert is
// retried once after archiving its type (the type belongs to this finding alone).
func (n *Notifier) storeAlert(ctx context.Context, alertType int, zoneID, description string) error {
	for try := 0; try < 2; try++ {
		if try > 0 {
			if err := n.cs.ArchiveAlerts(ctx, alertType); err != nil {
				return err
			}
		}
		if err := n.cs.GenerateAlert(ctx, alertType, zoneID, description); err != nil {
			return err
		}
		stored, err := n.cs.AlertStored(ctx, alertType, description)
		if err != nil {
			return err
		}
		if stored {
			return nil
		}
	}
	return fmt.Errorf("CloudStack answered success but stored no alert of type %d", alertType)
}

// checkSummary drops a summary whose earlier attempt CloudStack did store, before new capped
// findings are added to it.
func (n *Notifier) checkSummary(ctx context.Context) {
	sm := n.state.Summary
	if sm == nil || sm.Part.Attempted.IsZero() || sm.Description == "" {
		return
	}
	stored, err := n.cs.AlertStored(ctx, n.opts.Types.summaryType(), sm.Description)
	if err != nil {
		n.metrics.failures.Inc()
		n.fail("look up an earlier attempt", err)
		return
	}
	if stored {
		n.state.summaryStored(n.opts.Types.summaryType())
	}
}

func (n *Notifier) sendSummary(ctx context.Context) {
	sm := n.state.Summary
	if sm == nil || sm.Part.Done || ctx.Err() != nil {
		return
	}
	t := n.opts.Types.summaryType()
	// The summary type is reused: archive the previous summary first (see summary.go).
	if err := n.cs.ArchiveAlerts(ctx, t); err != nil {
		n.metrics.failures.Inc()
		n.fail("archiveAlerts", err)
		return
	}
	if err := n.storeAlert(ctx, t, "", sm.Description); err != nil {
		n.metrics.failures.Inc()
		n.fail("generateAlert", err)
		return
	}
	n.ok("generateAlert")
	n.state.summaryStored(t)
}

func sortedKeys(m map[string]*announcement) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func removeInt(list []int, v int) []int {
	out := list[:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
