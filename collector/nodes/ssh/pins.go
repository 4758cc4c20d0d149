package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"
)

// PinStore remembers host keys for trust-on-first-use, so that a re-installed or impersonated
// control node is noticed across restarts. The state database implements it; MemoryPins serves
// tests. Keys are stored in SSH wire format (gossh.PublicKey.Marshal).
type PinStore interface {
	// PinnedHostKey returns the key pinned under id, which is the cluster uuid, a space and
	// host:port.
	PinnedHostKey(id string) (key []byte, ok bool, err error)
	// PinHostKey stores key under id. The Lister calls it only when nothing is pinned yet.
	PinHostKey(id string, key []byte) error
	// ClusterHostKeys returns every key pinned for the cluster, by pin id, whatever the address.
	ClusterHostKeys(clusterID string) (map[string][]byte, error)
	// MoveHostKey stores key under id and removes the pins under drop, in one transaction.
	MoveHostKey(id string, key []byte, drop []string) error
}

// pinID keys a pin by cluster and address: two clusters behind one address never share one, and
// a cluster whose port forward moves takes its pin along only with the same key (firstAtAddress).
func pinID(clusterID, addr string) string { return clusterID + " " + addr }

// PinCluster returns the cluster uuid of a pin id, so that pins of clusters that are gone or of a
// re-installed control node can be dropped.
func PinCluster(id string) string {
	clusterID, _, _ := strings.Cut(id, " ")
	return clusterID
}

// MemoryPins is a PinStore in memory, for tests and the demo. Its zero value is ready to use.
type MemoryPins struct {
	mu   sync.Mutex
	keys map[string][]byte
}

// PinnedHostKey implements PinStore.
func (m *MemoryPins) PinnedHostKey(id string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	return bytes.Clone(k), ok, nil
}

// PinHostKey implements PinStore.
func (m *MemoryPins) PinHostKey(id string, key []byte) error { return m.MoveHostKey(id, key, nil) }

// ClusterHostKeys implements PinStore.
func (m *MemoryPins) ClusterHostKeys(clusterID string) (map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]byte)
	for id, k := range m.keys {
		if PinCluster(id) == clusterID {
			out[id] = bytes.Clone(k)
		}
	}
	return out, nil
}

// MoveHostKey implements PinStore.
func (m *MemoryPins) MoveHostKey(id string, key []byte, drop []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = make(map[string][]byte)
	}
	for _, d := range drop {
		delete(m.keys, d)
	}
	m.keys[id] = bytes.Clone(key)
	return nil
}

// RunPins is a MemoryPins for a run that must pin nothing (--preflight, --config.check): a
// control node's first key is trusted while the run lasts and kept nowhere, and the Lister's
// log line says so instead of claiming a pin.
type RunPins struct{ MemoryPins }

func (*RunPins) runOnly() {}

// checkPin implements the pin policy. The first key seen is pinned and logged at info level with
// its fingerprint, so that operators can compare it with the node's (a new address of a cluster
// with pins is not a first contact, see firstAtAddress); a later different key is
// refused every time, without logging (the caller logs the error once) and without re-pinning,
// so an operator has to remove the pin on purpose.
func (l *Lister) checkPin(clusterID, addr string, key gossh.PublicKey) error {
	if clusterID == "" {
		return withReason(reasonOther, errors.New("no cluster id to pin the host key under"))
	}
	id := pinID(clusterID, addr)
	offered := key.Marshal()

	pinned, ok, err := l.pinned(id, offered)
	if err != nil {
		return withReason(reasonOther, fmt.Errorf("read pinned host key: %w", err))
	}
	if !ok {
		return l.firstAtAddress(clusterID, addr, id, key)
	}
	if bytes.Equal(pinned, offered) {
		return nil
	}
	detail := fmt.Sprintf("offered %s, pinned %s", describeKey(key), describeWire(pinned))
	return withDetail(reasonHostKeyChanged, detail, errors.New("host key changed: "+detail))
}

// pinned returns the key pinned under id, or the key being pinned under it right now. When
// neither exists it reserves id for offered and reports !ok: the caller must then pin it. Read
// and reservation are one step under pinMu, so two concurrent first contacts cannot pin two keys.
func (l *Lister) pinned(id string, offered []byte) ([]byte, bool, error) {
	l.pinMu.Lock()
	defer l.pinMu.Unlock()
	if k, ok := l.pinning[id]; ok {
		return k, true, nil
	}
	k, ok, err := l.pins.PinnedHostKey(id)
	if err != nil || ok {
		return k, ok, err
	}
	if l.pinning == nil {
		l.pinning = make(map[string][]byte)
	}
	l.pinning[id] = offered
	return nil, false, nil
}

// pin stores the key reserved by pinned, dropping the pins in drop (of the cluster's old
// addresses), and releases the reservation. The write is made outside pinMu, so that the first
// contacts of a cycle share the store's transactions instead of queueing one fsync each.
func (l *Lister) pin(id string, offered []byte, drop []string) error {
	var err error
	if len(drop) == 0 {
		err = l.pins.PinHostKey(id, offered)
	} else {
		err = l.pins.MoveHostKey(id, offered, drop)
	}
	l.release(id)
	return err
}

// release ends the reservation of id made by pinned.
func (l *Lister) release(id string) {
	l.pinMu.Lock()
	delete(l.pinning, id)
	l.pinMu.Unlock()
}

// describeWire renders a stored key for an error message, even when the store holds junk.
func describeWire(wire []byte) string {
	k, err := gossh.ParsePublicKey(wire)
	if err != nil {
		return "an unparsable key"
	}
	return describeKey(k)
}
