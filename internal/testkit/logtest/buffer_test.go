package logtest

import (
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrentWriters writes from many goroutines while reading: under -race a missing
// lock fails the test, and no write is lost.
func TestBufferConcurrentWriters(t *testing.T) {
	t.Parallel()
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("x\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "x\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}
