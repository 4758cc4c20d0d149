package state

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// A first cycle pins every control node's key at once: concurrent pins share transactions
// (PinHostKey uses bbolt's Batch), and every one of them is on disk when its call returns.
func TestConcurrentPinsAreAllStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := []byte(fmt.Sprintf("key-%d", i))
			errs[i] = s.PinHostKey(fmt.Sprintf("c%d 10.0.0.1:2222", i), key)
			key[0] = 'X' // the caller's buffer is not kept
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("pin %d: %v", i, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		key, ok, err := s.PinnedHostKey(fmt.Sprintf("c%d 10.0.0.1:2222", i))
		if want := fmt.Sprintf("key-%d", i); err != nil || !ok || string(key) != want {
			t.Fatalf("pin %d after reopening: %q, %v, %v; want %q", i, key, ok, err, want)
		}
	}
}
