package exporter

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestTriggerAtEveryHandoff stops the exporter at each point where work passes between
// goroutines (a request handed to the loop, a cycle started, its snapshot published before its
// pins are written, its end before and after the loop takes it, a reload applied before its
// answer) and posts /-/check while it is stopped there: every such request must lead to a cycle
// that starts after it. Before the loop owned cycles, a request in the window between the
// publication of a snapshot and the end of its cycle was dropped.
func TestTriggerAtEveryHandoff(t *testing.T) {
	for _, point := range []handoff{handoffQueued, handoffStarted, handoffPublished, handoffFinished, handoffSettled, handoffReloaded} {
		t.Run(string(point), func(t *testing.T) {
			e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig("  interval: 1h\n", "")
			e.start()
			e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })

			var armed atomic.Bool
			reached, release := make(chan struct{}), make(chan struct{})
			hook := func(h handoff) {
				if h == point && armed.CompareAndSwap(true, false) {
					close(reached)
					<-release
				}
			}
			e.exp.hook.Store(&hook)
			armed.Store(true)

			// Drive the exporter to the point: a reload for the reload's point, a cycle otherwise.
			asked := make(chan int, 1)
			go func() {
				if point == handoffReloaded {
					asked <- post(t, e.url+"/-/reload")
					return
				}
				asked <- post(t, e.url+"/-/check")
			}()
			select {
			case <-reached:
			case <-time.After(20 * time.Second):
				t.Fatalf("the exporter never reached %s", point)
			}
			requested := time.Now()
			if code := post(t, e.url+"/-/check"); code != http.StatusAccepted {
				t.Fatalf("/-/check at %s: %d, want 202", point, code)
			}
			close(release)
			if code := <-asked; code != http.StatusOK && code != http.StatusAccepted {
				t.Fatalf("the request that drove the exporter to %s: %d", point, code)
			}
			e.waitFor("a cycle started after the /-/check at "+string(point), func() bool {
				return e.exp.lastSnapshot().Start.After(requested)
			})
		})
	}
}
