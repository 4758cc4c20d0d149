package workers

import (
	"context"
	"sync"
	"testing"
)

// ForEach runs every item once, never more than limit at once, and starts none after ctx ends.
func TestForEach(t *testing.T) {
	t.Parallel()
	const count, limit = 40, 3
	var mu sync.Mutex
	inFlight, peak := 0, 0
	ran := make([]int, count)
	ForEach(t.Context(), limit, count, func(i int) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		ran[i]++
		mu.Unlock()
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	for i, n := range ran {
		if n != 1 {
			t.Fatalf("item %d ran %d times", i, n)
		}
	}
	if peak > limit {
		t.Errorf("%d items at once, limit %d", peak, limit)
	}

	ctx, cancel := context.WithCancel(t.Context())
	started := 0
	ForEach(ctx, 1, count, func(int) {
		started++
		if started == 5 {
			cancel()
		}
	})
	if started != 5 {
		t.Errorf("%d items started, want 5 (none after ctx ended)", started)
	}
	ForEach(t.Context(), 0, 2, func(i int) { ran[i]++ }) // a limit below 1 still runs
	if ran[0] != 2 || ran[1] != 2 {
		t.Errorf("limit 0 ran %v", ran[:2])
	}
}
