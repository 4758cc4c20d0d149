// Package logtest holds what tests need to capture output written by other goroutines.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that a log handler or a child process writes from its own goroutines
// while the test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p under the lock.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
