package notifier_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestNotifyCallsOverlapWithinBound: 40 clusters with a new finding each, at concurrency 4: the
// calls overlap, never more than 4 at once, and every finding is annotated exactly once.
func TestNotifyCallsOverlapWithinBound(t *testing.T) {
	t.Parallel()
	const clusters, limit = 40, 4
	f := newFleet(t, notifier.Options{Concurrency: limit}, clusters)
	f.cs.SetLatency(10 * time.Millisecond) // a round trip long enough for the calls to meet
	f.cs.ResetCalls()
	f.notify(f.statuses(func(int) int { return 1 }))

	if got := f.cs.MaxInFlight(); got <= 1 || got > limit {
		t.Errorf("the fake saw at most %d notifier calls at once, want 2 to %d", got, limit)
	}
	for i := range clusters {
		if got := f.annotationsByCluster()[fleetName(i)]; got != 1 {
			t.Errorf("cluster %s holds %d annotations, want 1", fleetName(i), got)
		}
	}
	f.checkNoDoubles(t)
	if got, max := len(f.alerts()), f.opts.MaxAlertsPerCycle+1; got != max {
		t.Errorf("%d alerts, want max_alerts_per_cycle and the summary: %d", got, max)
	}
	if got := f.gauge(t, "cks_drift_notify_duration_seconds"); got <= 0 {
		t.Errorf("cks_drift_notify_duration_seconds = %v after a pass, want it set", got)
	}
}

// TestNotifyOneAtATimeKeepsPlannedOrder: at concurrency 1 the calls are made in the planned
// order: archives, then cluster by cluster (by name) each finding's annotation and alert, a
// resolution, and the capped-alerts summary last. The cap is shared (fairshare.go): c05's second
// finding is the one past it, since every other cluster has one.
func TestNotifyOneAtATimeKeepsPlannedOrder(t *testing.T) {
	t.Parallel()
	f := newFleet(t, notifier.Options{Concurrency: 1, MaxAlertsPerCycle: 6}, 6)
	f.cs.ResetCalls()
	f.notify(f.statuses(func(i int) int { return 1 + i/5 }))
	want := []string{
		"addAnnotation c00-n0", "generateAlert c00-n0",
		"addAnnotation c01-n0", "generateAlert c01-n0",
		"addAnnotation c02-n0", "generateAlert c02-n0",
		"addAnnotation c03-n0", "generateAlert c03-n0",
		"addAnnotation c04-n0", "generateAlert c04-n0",
		"addAnnotation c05-n0", "generateAlert c05-n0", "addAnnotation c05-n1",
		fmt.Sprintf("archiveAlerts %d", f.opts.Types.Max), "generateAlert summary",
	}
	if diff := cmp.Diff(want, f.writes()); diff != "" {
		t.Fatalf("first pass calls (-want +got):\n%s", diff)
	}

	// c00 matches again (its alert type is archived, it gets a resolution); c04 has a second
	// finding.
	c00Type := f.alertType(t, "c00-n0")
	f.cs.ResetCalls()
	f.notify(f.statuses(func(i int) int {
		switch i {
		case 0:
			return 0
		case 4, 5:
			return 2
		}
		return 1
	}))
	want = []string{
		fmt.Sprintf("archiveAlerts %d", c00Type),
		"addAnnotation resolution c00",
		"addAnnotation c04-n1", "generateAlert c04-n1",
	}
	if diff := cmp.Diff(want, f.writes()); diff != "" {
		t.Errorf("second pass calls (-want +got):\n%s", diff)
	}
	f.checkNoDoubles(t)
}

// TestNotifyKeepsOneClustersOrder: while 20 clusters are announced at once, the calls of the
// cluster with five findings keep their planned order: each annotation before its alert, by
// finding, past the annotation cap alerts only, and the summary annotation last. The alert cap
// has room for every finding.
func TestNotifyKeepsOneClustersOrder(t *testing.T) {
	t.Parallel()
	f := newFleet(t, notifier.Options{Concurrency: 8, MaxAlertsPerCycle: 30, MaxAnnotationsPerCluster: 3}, 20)
	f.cs.SetLatency(5 * time.Millisecond)
	f.cs.ResetCalls()
	f.notify(f.statuses(func(i int) int {
		if i == 0 {
			return 5
		}
		return 1
	}))
	var got []string
	for _, w := range f.writes() {
		if strings.HasSuffix(w, " c00") || strings.Contains(w, " c00-") {
			got = append(got, w)
		}
	}
	want := []string{
		"addAnnotation c00-n0", "generateAlert c00-n0",
		"addAnnotation c00-n1", "generateAlert c00-n1",
		"addAnnotation c00-n2", "generateAlert c00-n2",
		"generateAlert c00-n3", "generateAlert c00-n4",
		"addAnnotation summary c00",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls of c00 (-want +got):\n%s", diff)
	}
	if got := f.cs.MaxInFlight(); got > 8 {
		t.Errorf("%d calls at once, want at most 8", got)
	}
	f.checkNoDoubles(t)
}

// TestNotifyFailingClusterStopsNoOther: three clusters CloudStack does not know refuse their
// annotations; the others are announced, each refusal counts once, and the next pass, after
// the clusters appear, sends those three annotations and nothing else again.
func TestNotifyFailingClusterStopsNoOther(t *testing.T) {
	t.Parallel()
	const clusters = 30
	f := newFleet(t, notifier.Options{Concurrency: 4}, clusters)
	ghosts := map[int]bool{3: true, 17: true, 28: true}
	var removed []cloudstacktest.Cluster
	f.cs.Update(func(w *cloudstacktest.World) {
		w.Clusters = slices.DeleteFunc(w.Clusters, func(c *cloudstacktest.Cluster) bool {
			for i := range ghosts {
				if c.ID == f.ids[i] {
					removed = append(removed, *c)
					return true
				}
			}
			return false
		})
	})
	statuses := f.statuses(func(int) int { return 1 })
	f.notify(statuses)

	byCluster := f.annotationsByCluster()
	for i := range clusters {
		if want := map[bool]int{false: 1, true: 0}[ghosts[i]]; byCluster[fleetName(i)] != want {
			t.Errorf("cluster %s holds %d annotations after the first pass, want %d", fleetName(i), byCluster[fleetName(i)], want)
		}
	}
	if got := f.counter(t, "cks_drift_notification_failures_total"); got != float64(len(ghosts)) {
		t.Errorf("failures counted: %v, want %d", got, len(ghosts))
	}
	alerts := len(f.alerts())

	f.cs.Update(func(w *cloudstacktest.World) {
		for _, c := range removed {
			w.AddCluster(c)
		}
	})
	f.cs.ResetCalls()
	f.notify(statuses)
	var want []string
	for i := range clusters {
		if ghosts[i] {
			want = append(want, "listAnnotations "+fleetName(i), fmt.Sprintf("addAnnotation %s-n0", fleetName(i)))
		}
	}
	got := f.writes()
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second pass calls (-want +got):\n%s", diff)
	}
	for i := range clusters {
		if n := f.annotationsByCluster()[fleetName(i)]; n != 1 {
			t.Errorf("cluster %s holds %d annotations after the retry, want 1", fleetName(i), n)
		}
	}
	if got := len(f.alerts()); got != alerts {
		t.Errorf("%d alerts after the retry, want the %d of the first pass", got, alerts)
	}
	if got := f.counter(t, "cks_drift_notification_failures_total"); got != float64(len(ghosts)) {
		t.Errorf("failures counted after a clean retry: %v, want still %d", got, len(ghosts))
	}
	f.checkNoDoubles(t)
}

// TestNotifyCancelledStartsNoCall: the first annotations hang; when the pass's context is
// cancelled no further call starts, the state calls nothing done that CloudStack does not hold
// (an alert past the cap is done: the summary names it), and the next pass announces every
// finding once.
func TestNotifyCancelledStartsNoCall(t *testing.T) {
	t.Parallel()
	const clusters, limit = 12, 4
	f := newFleet(t, notifier.Options{Concurrency: limit}, clusters)
	f.cs.SetFault("addAnnotation", cloudstacktest.Fault{Delay: time.Hour})
	f.cs.ResetCalls()
	statuses := f.statuses(func(int) int { return 1 })
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { f.n.Notify(ctx, statuses) })
	await(t, "the calls in flight to hang", func() bool { return f.cs.CallCount("addAnnotation") == limit })
	cancel()
	wg.Wait()

	if got := f.writes(); len(got) != limit {
		t.Errorf("calls of the cancelled pass: %v, want only the %d that hung", got, limit)
	}
	if got := f.annotations(); len(got) != 0 {
		t.Errorf("CloudStack holds annotations of hung calls: %v", got)
	}
	for id, cs := range f.saved(t).Clusters {
		for _, ss := range cs.Sides {
			for key, a := range ss.Findings {
				if a.Annotation.Done || a.Alert.Done && !a.Capped { // a capped alert is done by the summary
					t.Errorf("saved state calls a part of %s/%s done that CloudStack never accepted: %+v", id, key, a)
				}
			}
		}
	}

	f.cs.ClearFaults()
	f.notify(statuses)
	for i := range clusters {
		if n := f.annotationsByCluster()[fleetName(i)]; n != 1 {
			t.Errorf("cluster %s holds %d annotations after the next pass, want 1", fleetName(i), n)
		}
	}
	if got, max := len(f.alerts()), f.opts.MaxAlertsPerCycle+1; got != max {
		t.Errorf("%d alerts after the next pass, want %d", got, max)
	}
	f.checkNoDoubles(t)
}

// TestConcurrencyRefused: the notifier takes its concurrency from the configuration and has no
// default of its own: New and Configure refuse zero and below.
func TestConcurrencyRefused(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	for _, c := range []int{0, -1} {
		o := e.opts
		o.Concurrency = c
		if _, err := notifier.New(nil, e.store, o, nil, nil, nil); !errors.Is(err, notifier.ErrInvalidOptions) {
			t.Errorf("New with concurrency %d: error %v, want ErrInvalidOptions", c, err)
		}
		if err := e.n.Configure(nil, o); !errors.Is(err, notifier.ErrInvalidOptions) {
			t.Errorf("Configure with concurrency %d: error %v, want ErrInvalidOptions", c, err)
		}
	}
}
