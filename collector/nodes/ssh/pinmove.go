package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// A cluster's SSH address is a port-forwarding rule on its public IP, and the tenant owns its
// rules: moving the rule to another port (or the IP changing) must not make the next contact a
// "first" one, or a tenant could have any key pinned for its cluster at will, and the pins of
// the old addresses would stay for as long as the cluster exists. So an address without a pin of
// its own is first checked against the cluster's pins at other addresses.

// Results of cks_drift_ssh_host_key_address_changes_total.
const (
	addressMoved   = "moved"
	addressRefused = "refused"
)

// firstAtAddress decides on key, offered at addr where the cluster has no pin: pinned on first
// contact when the cluster has no pin anywhere; the pin moved to addr, and the old addresses'
// pins dropped, when the key is the one pinned at another address; refused as host_key_changed
// otherwise, the pins left as they are. id was reserved by pinned and is released here.
func (l *Lister) firstAtAddress(clusterID, addr, id string, key gossh.PublicKey) error {
	offered := key.Marshal()
	others, err := l.pins.ClusterHostKeys(clusterID)
	if err != nil {
		l.release(id)
		return withReason(reasonOther, fmt.Errorf("read the cluster's pinned host keys: %w", err))
	}
	delete(others, id)
	if len(others) == 0 {
		if err := l.pin(id, offered, nil); err != nil {
			return withReason(reasonOther, fmt.Errorf("pin host key: %w", err))
		}
		msg := "Pinned the SSH host key of a control node on first contact"
		if _, runOnly := l.pins.(interface{ runOnly() }); runOnly {
			msg = "Trusted the SSH host key of a control node for this run only; nothing is pinned"
		}
		l.log.Info(msg, "cluster_id", clusterID, "addr", addr, "key_type", key.Type(), "fingerprint", gossh.FingerprintSHA256(key))
		return nil
	}
	old := make([]string, 0, len(others))
	same := ""
	for oid, k := range others {
		old = append(old, oid)
		if bytes.Equal(k, offered) {
			same = oid
		}
	}
	slices.Sort(old)
	if same == "" {
		l.release(id)
		l.metrics.HostKeyAddressChanges.WithLabelValues(addressRefused).Inc()
		detail := fmt.Sprintf("offered %s at a new address; pinned %s at %s", describeKey(key), describeWire(others[old[0]]), pinAddr(old[0]))
		l.log.Warn("A control node answered at a new address with another host key than the one pinned for its cluster; refused (see --ssh.forget-host-key)",
			"cluster_id", clusterID, "addr", addr, "pinned_addr", pinAddr(old[0]),
			"fingerprint", gossh.FingerprintSHA256(key), "pinned_fingerprint", fingerprintWire(others[old[0]]))
		return withDetail(reasonHostKeyChanged, detail, errors.New("host key changed: "+detail))
	}
	if err := l.pin(id, offered, old); err != nil {
		return withReason(reasonOther, fmt.Errorf("move the pinned host key: %w", err))
	}
	l.metrics.HostKeyAddressChanges.WithLabelValues(addressMoved).Inc()
	l.log.Warn("The SSH address of a control node changed and it offered its pinned host key there; the pin moved to the new address",
		"cluster_id", clusterID, "addr", addr, "old_addr", pinAddr(same), "dropped_pins", len(old),
		"fingerprint", gossh.FingerprintSHA256(key))
	return nil
}

// clusterPinTypes returns the key types pinned for the cluster at any address.
func (l *Lister) clusterPinTypes(clusterID string) []string {
	pins, err := l.pins.ClusterHostKeys(clusterID)
	if err != nil {
		return nil
	}
	var types []string
	for _, wire := range pins {
		if k, err := gossh.ParsePublicKey(wire); err == nil && !slices.Contains(types, k.Type()) {
			types = append(types, k.Type())
		}
	}
	return types
}

// pinAddr returns the address of a pin id.
func pinAddr(id string) string {
	_, addr, _ := strings.Cut(id, " ")
	return addr
}

// fingerprintWire is the fingerprint of a stored key, even when the store holds junk.
func fingerprintWire(wire []byte) string {
	k, err := gossh.ParsePublicKey(wire)
	if err != nil {
		return "unparsable"
	}
	return gossh.FingerprintSHA256(k)
}
