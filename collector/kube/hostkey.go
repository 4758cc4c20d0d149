package kube

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyPolicy says how a control node's host key is verified. CKS nodes are created and
// re-created by CloudStack, so a static known_hosts file is often impractical; pin trusts the
// first key and then holds on to it.
type HostKeyPolicy string

// Host key policies.
const (
	// Strict accepts only keys listed for the address in Options.KnownHostsFile.
	Strict HostKeyPolicy = "strict"
	// Pin trusts the first key seen per cluster and address and refuses any other afterwards.
	Pin HostKeyPolicy = "pin"
	// Insecure accepts any key; a man in the middle could then feed the exporter a node list.
	Insecure HostKeyPolicy = "insecure"
)

// verdict keeps a host key callback's own error, because the ssh package wraps it into handshake
// text and the label must not depend on that wording. It is locked because the callback runs on
// the ssh package's goroutine, which a timeout can leave running after the handshake returned.
type verdict struct {
	mu  sync.Mutex
	err error
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

// hostKeyCallback returns the callback for one handshake, recording a refusal in rejected.
func (l *Lister) hostKeyCallback(clusterID, addr string, rejected *verdict) ssh.HostKeyCallback {
	return func(_ string, remote net.Addr, key ssh.PublicKey) error {
		var err error
		switch l.policy {
		case Insecure:
			return nil
		case Pin:
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
func (l *Lister) checkKnownHosts(addr string, remote net.Addr, key ssh.PublicKey) error {
	err := l.knownHosts(addr, remote, key)
	if err == nil {
		return nil
	}
	fp := ssh.FingerprintSHA256(key)
	var keyErr *knownhosts.KeyError
	if errors.As(err, &keyErr) {
		if len(keyErr.Want) == 0 {
			return withReason(reasonHostKeyUnknown,
				fmt.Errorf("host key %s not in known_hosts: %w", fp, err))
		}
		return withReason(reasonHostKeyChanged,
			fmt.Errorf("host key %s differs from known_hosts: %w", fp, err))
	}
	var revoked *knownhosts.RevokedError
	if errors.As(err, &revoked) {
		return withReason(reasonHostKeyChanged, fmt.Errorf("host key %s is revoked: %w", fp, err))
	}
	return withReason(reasonOther, fmt.Errorf("check known_hosts: %w", err))
}
