package ssh

import (
	"errors"
	"sync"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// gatedPins is a PinStore whose writes wait until the test lets them through, so that a second
// contact can arrive while a first key is being written.
type gatedPins struct {
	MemoryPins
	writing chan struct{} // a write has started
	release chan error    // what the write returns
}

func (g *gatedPins) PinHostKey(id string, key []byte) error {
	g.writing <- struct{}{}
	if err := <-g.release; err != nil {
		return err
	}
	return g.MemoryPins.PinHostKey(id, key)
}

// While a first key is written (outside the lock, so that pins of a cycle share the store's
// transactions), a contact with another key is refused and one with the same key accepted; a
// failed write pins nothing, and the next contact pins again.
func TestPinWhileAnotherIsWritten(t *testing.T) {
	t.Parallel()
	pins := &gatedPins{writing: make(chan struct{}), release: make(chan error)}
	l := newFixture(t).lister(t, func(o *Options) { o.Pins = pins; o.Policy = config.HostKeyPin })
	first, other := newHostKey(t).PublicKey(), newHostKey(t).PublicKey()
	const cluster, addr = "6f1d2c3b-0000-4000-8000-000000000001", "10.0.0.1:2222"

	done := make(chan error, 1)
	go func() { done <- l.checkPin(cluster, addr, first) }()
	<-pins.writing
	if err := l.checkPin(cluster, addr, other); Reason(err) != reasonHostKeyChanged {
		t.Errorf("another key while the first is written: %v, want reason %s", err, reasonHostKeyChanged)
	}
	if err := l.checkPin(cluster, addr, first); err != nil {
		t.Errorf("the same key while it is written: %v", err)
	}
	pins.release <- errors.New("disk full")
	if err := <-done; err == nil {
		t.Fatal("a failed write pinned the key")
	}
	if _, ok, _ := pins.MemoryPins.PinnedHostKey(pinID(cluster, addr)); ok {
		t.Fatal("a failed write left a pin")
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); done <- l.checkPin(cluster, addr, other) }()
	<-pins.writing
	pins.release <- nil
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatalf("pinning after a failed write: %v", err)
	}
	if err := l.checkPin(cluster, addr, first); Reason(err) != reasonHostKeyChanged {
		t.Errorf("the first key after the other was pinned: %v, want reason %s", err, reasonHostKeyChanged)
	}
}
