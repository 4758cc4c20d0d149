package notifier_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// BenchmarkNotifyOneCycle announces one cycle in which one cluster has n new findings (a control
// node printing n node names), from an empty state, against the fake CloudStack on loopback: op
// = the notifier's whole pass, its CloudStack calls (capped at 11 annotations and 6 alerts) and
// its two state writes included. Its cost must grow linearly with n.
func BenchmarkNotifyOneCycle(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			findings := make([]collector.Finding, n)
			for i := range findings {
				findings[i] = nodeFinding("prod", fmt.Sprintf("node-%05d", i))
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				e := newNotifierEnv(b, notifier.Options{})
				statuses := e.status(findings...)
				b.StartTimer()
				e.notify(statuses)
			}
		})
	}
}

// BenchmarkNotifyManyClusters announces one cycle in which 500 clusters have one new finding
// each, from an empty state, against the fake CloudStack 50 ms away: op = the notifier's whole
// pass. Its calls grow with the new findings (an annotation each, the capped alerts, the summary);
// at concurrency 8 they overlap across clusters, so the pass takes about an eighth of the time.
func BenchmarkNotifyManyClusters(b *testing.B) {
	const clusters, latency = 500, 50 * time.Millisecond
	for _, c := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			calls := 0
			for b.Loop() {
				b.StopTimer()
				f := newFleet(b, notifier.Options{Concurrency: c}, clusters)
				statuses := f.statuses(func(int) int { return 1 })
				f.cs.SetLatency(latency)
				f.cs.ResetCalls()
				b.StartTimer()
				f.notify(statuses)
				b.StopTimer()
				calls += len(f.cs.Calls())
				b.StartTimer()
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
		})
	}
}
