package ssh

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// verdict keeps a host key callback's own error, because the ssh package wraps it into handshake
// text and the label must not depend on that wording, and the connection's key exchanges so far
// (rekey.go). It is locked because the callback runs on the ssh package's goroutine, which a
// timeout can leave running after the handshake returned.
type verdict struct {
	mu        sync.Mutex
	err       error
	exchanges int
}

func (v *verdict) set(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.err = err
}

func (v *verdict) get() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

// hostKeyCallback returns the callback for one connection, called at the end of each of its key
// exchanges, recording a refusal in rejected.
func (l *Lister) hostKeyCallback(clusterID, addr string, rejected *verdict) gossh.HostKeyCallback {
	return func(_ string, remote net.Addr, key gossh.PublicKey) error {
		if err := rejected.exchange(); err != nil {
			return err
		}
		var err error
		switch l.policy {
		case config.HostKeyInsecure:
			return nil
		case config.HostKeyPin:
			err = l.checkPin(clusterID, addr, key)
		default:
			err = l.checkKnownHosts(addr, remote, key)
		}
		rejected.set(err)
		return err
	}
}

// checkKnownHosts implements the strict policy and tells an unknown host from a changed key,
// since the first is a setup gap and the second may be an attack.
func (l *Lister) checkKnownHosts(addr string, remote net.Addr, key gossh.PublicKey) error {
	err := l.knownHosts(addr, remote, key)
	if err == nil {
		return nil
	}
	offered := describeKey(key)
	var keyErr *knownhosts.KeyError
	if errors.As(err, &keyErr) {
		if len(keyErr.Want) == 0 {
			return withDetail(reasonHostKeyUnknown, "offered "+offered+"; known_hosts has no key for "+knownhosts.Normalize(addr),
				fmt.Errorf("host key %s not in known_hosts: %w", offered, err))
		}
		want := make([]string, len(keyErr.Want))
		for i, k := range keyErr.Want {
			want[i] = describeKey(k.Key)
		}
		return withDetail(reasonHostKeyChanged, fmt.Sprintf("offered %s, known_hosts has %v", offered, want),
			fmt.Errorf("host key %s differs from known_hosts: %w", offered, err))
	}
	var revoked *knownhosts.RevokedError
	if errors.As(err, &revoked) {
		return withDetail(reasonHostKeyChanged, "offered "+offered+", which known_hosts marks as revoked",
			fmt.Errorf("host key %s is revoked: %w", offered, err))
	}
	return withReason(reasonOther, fmt.Errorf("check known_hosts: %w", err))
}

// describeKey names a key for operators: its type and SHA256 fingerprint, as ssh-keygen -l
// prints them.
func describeKey(k gossh.PublicKey) string {
	return gossh.FingerprintSHA256(k) + " (" + k.Type() + ")"
}

// preferredHostKeyTypes is OpenSSH's order of plain host key types (ssh_config(5),
// HostKeyAlgorithms); the ssh package's own default puts ECDSA first and ed25519 last.
var preferredHostKeyTypes = []string{
	gossh.KeyAlgoED25519,
	gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384, gossh.KeyAlgoECDSA521,
	gossh.KeyAlgoRSA,
}

// hostKeyAlgorithms returns the host key algorithms to offer for a key type: an RSA key signs
// with SHA-2 (rsa-sha2-512 first); SHA-1 "ssh-rsa" signatures are not offered.
func hostKeyAlgorithms(keyType string) []string {
	if keyType == gossh.KeyAlgoRSA {
		return []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
	}
	return []string{keyType}
}

// algorithmsFor returns the host key algorithms to offer for these key types, in OpenSSH's
// order, types it does not know last. As OpenSSH does, a client that already knows keys of a
// host asks only for their types, so that a node with several host keys shows one it knows.
func algorithmsFor(types []string) []string {
	var out []string
	add := func(t string) {
		for _, a := range hostKeyAlgorithms(t) {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	for _, t := range preferredHostKeyTypes {
		if slices.Contains(types, t) {
			add(t)
		}
	}
	for _, t := range types {
		add(t)
	}
	return out
}

// firstContact is what a node is asked for before anything is known of it: OpenSSH's order, so
// that the key pinned is the one ssh(1) would have shown, and no certificate (a pinned
// certificate would change at every renewal).
var firstContact = algorithmsFor(preferredHostKeyTypes)

// probeKey is a key no host has, offered to the known_hosts callback only to learn, from its
// refusal, which keys the file holds for an address.
var probeKey = func() gossh.PublicKey {
	k, err := gossh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		panic(err) // a constant input: cannot happen
	}
	return k
}()

// hostKeyAlgorithmsFor returns the host key algorithms for one handshake with addr: the types
// known_hosts holds for it (strict) or the type of its pinned key (pin). Nil leaves the ssh
// package's default, for insecure and for a host known_hosts does not name (refused anyway).
func (l *Lister) hostKeyAlgorithmsFor(clusterID, addr string, remote net.Addr) []string {
	switch l.policy {
	case config.HostKeyStrict:
		var keyErr *knownhosts.KeyError
		if err := l.knownHosts(addr, remote, probeKey); !errors.As(err, &keyErr) || len(keyErr.Want) == 0 {
			return nil
		}
		var types []string
		for _, k := range keyErr.Want {
			types = append(types, k.Key.Type())
		}
		return algorithmsFor(types)
	case config.HostKeyPin:
		wire, ok, err := l.pins.PinnedHostKey(pinID(clusterID, addr))
		if err == nil && !ok {
			// A new address of a cluster with pins elsewhere: ask for the types pinned there,
			// so that the key the pin may move with is the one shown.
			if types := l.clusterPinTypes(clusterID); len(types) > 0 {
				return algorithmsFor(types)
			}
		}
		if err != nil || !ok {
			return firstContact // an unreadable store fails in the callback, with its reason
		}
		k, err := gossh.ParsePublicKey(wire)
		if err != nil {
			return firstContact
		}
		return algorithmsFor([]string{k.Type()})
	default:
		return nil
	}
}
