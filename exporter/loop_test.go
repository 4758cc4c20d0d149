package exporter

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestUntilNext: check.interval runs from the start of one cycle to the start of the next; a cycle
// longer than the interval is followed by one at once, and by one only.
func TestUntilNext(t *testing.T) {
	start := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		took time.Duration
		want time.Duration
	}{
		{"a quick cycle", 2 * time.Second, 5*time.Minute - 2*time.Second},
		{"a cycle that waited out cloudstack.timeout", 30 * time.Second, 4*time.Minute + 30*time.Second},
		{"a cycle as long as the interval", 5 * time.Minute, 0},
		{"a cycle longer than the interval", 7 * time.Minute, 0},
		{"a cycle longer than two intervals", 11 * time.Minute, 0},
		{"a clock set back during the cycle", -time.Minute, 5 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := untilNext(start, start.Add(tc.took), 5*time.Minute); got != tc.want {
				t.Fatalf("next cycle after %s: in %s, want %s", tc.took, got, tc.want)
			}
		})
	}
}

// TestIntervalFromStartToStart: the loop measures check.interval from the start of a cycle.
// The first cycle takes longer than the interval on the injected clock, so the next one starts
// at once, without a /-/check; measured from its end, it would wait an hour.
func TestIntervalFromStartToStart(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	clock := &fakeClock{now: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
	var overran atomic.Bool
	hook := func(h handoff) {
		if h == handoffFinished && overran.CompareAndSwap(false, true) {
			clock.Add(time.Hour + time.Minute)
		}
	}
	e.prepare = func(exp *Exporter) {
		exp.now = clock.Now
		exp.hook.Store(&hook)
	}
	e.start()
	e.waitFor("a second cycle right after the first one overran check.interval", func() bool { return e.cycles() >= 2 })
}
