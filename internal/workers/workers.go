// Package workers runs a list of work items with a bounded number of goroutines.
package workers

import (
	"context"
	"sync"
	"sync/atomic"
)

// ForEach runs fn(0) to fn(count-1), at most limit at once and in that order of start, and
// returns when every fn it started has returned. Once ctx is done it starts no more. It starts
// min(limit, count) goroutines, not one per item: at ten thousand items, a goroutine each would
// hold tens of megabytes of stacks while waiting for its turn.
func ForEach(ctx context.Context, limit, count int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(limit, 1), count) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= count || ctx.Err() != nil {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
