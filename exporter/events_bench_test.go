package exporter

import (
	"context"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestWebhookLatency (opt-in: CKS_DRIFT_EVENTS_BENCH=1) delivers 1,000 signed events as
// CloudStack does, 100 a second, each about a VM of one of 20 watched clusters, and logs the
// 50th and 99th percentiles of the webhook's answer (goal: 50 ms at the 99th) and of the time from
// an event to the publication of its re-check (cks_drift_event_to_publish_seconds, goal: 5 s).
// docs/benchmarks.md has the figures. It asserts only that every delivery is answered 200.
func TestWebhookLatency(t *testing.T) {
	if os.Getenv("CKS_DRIFT_EVENTS_BENCH") != "1" {
		t.Skip("opt-in: 10 s of deliveries; set CKS_DRIFT_EVENTS_BENCH=1")
	}
	var specs []simulator.ClusterSpec
	for i := range 20 {
		specs = append(specs, simulator.ClusterSpec{Name: "c" + string(rune('a'+i)), Account: "t" + string(rune('a'+i%5))})
	}
	e, cs := startWithEvents(t, specs...)
	e.editConfig("  recheck_delay: 0s\n", "  recheck_delay: 2s\n  max_rechecks_per_minute: 100000\n")
	e.postReload()
	var evs []cloudstacktest.ActionEvent
	for i := range 1000 {
		c := cs[i%len(cs)]
		evs = append(evs, e.vmEvent("VM.REBOOT", c.VMs[i%len(c.VMs)]))
	}
	times, failed := answerTimes(context.Background(), e.hook(), evs, 100)
	if failed > 0 {
		t.Errorf("%d of %d deliveries not answered 200", failed, len(evs))
	}
	e.waitFor("the re-checks", func() bool {
		return e.metrics()[`cks_drift_events_total{result="accepted",source="webhook"}`] == float64(len(evs))
	})
	m := e.metrics()
	t.Logf("webhook answer: p50 %v, p99 %v, max %v over %d deliveries at 100/s", times[len(times)/2], times[len(times)*99/100], times[len(times)-1], len(times))
	t.Logf("re-checks %v; event to publish: count %v, sum %.1f s, <=2s %v, <=3s %v, <=5s %v, <=10s %v",
		m["cks_drift_rechecks_total"], m["cks_drift_event_to_publish_seconds_count"], m["cks_drift_event_to_publish_seconds_sum"],
		m[`cks_drift_event_to_publish_seconds_bucket{le="2"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="3"}`],
		m[`cks_drift_event_to_publish_seconds_bucket{le="5"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="10"}`])
}

// answerTimes delivers evs at rate a second with hook (one try each) and returns the answers'
// times, sorted, and how many were not answered 200.
func answerTimes(ctx context.Context, hook cloudstacktest.Webhook, evs []cloudstacktest.ActionEvent, rate int) ([]time.Duration, int) {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	out := make([]time.Duration, 0, len(evs))
	failed := 0
	hook.Tries = 1
	for _, ev := range evs {
		<-tick.C
		start := time.Now()
		if d := hook.Deliver(ctx, ev); d.Statuses[0] != http.StatusOK {
			failed++
		}
		out = append(out, time.Since(start))
	}
	slices.Sort(out)
	return out, failed
}
