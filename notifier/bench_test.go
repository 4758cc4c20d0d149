package notifier_test

import (
	"fmt"
	"testing"

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
