package ssh

import (
	"bytes"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestRealSSHDPinThenRotation: pin on first contact takes the ed25519 key of Debian's three;
// removing the other keys changes nothing; a new ed25519 key (a re-installed node) is
// host_key_changed with both fingerprints, and is not pinned.
func TestRealSSHDPinThenRotation(t *testing.T) {
	n := newRealNode(t, sshtest.ED25519, nil)
	pins := &MemoryPins{}
	l := n.lister(t, func(o *Options) { o.Policy, o.Pins = config.HostKeyPin, pins })
	id := pinID(n.cluster.ID, n.srv.Addr())
	if _, err := n.nodes(t, l); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	var ed25519 gossh.PublicKey
	for _, k := range n.srv.HostKeys() {
		if k.Type() == gossh.KeyAlgoED25519 {
			ed25519 = k
		}
	}
	if got, _, _ := pins.PinnedHostKey(id); !bytes.Equal(got, ed25519.Marshal()) {
		t.Fatalf("pinned %s, want the node's ed25519 key %s", describeWire(got), describeKey(ed25519))
	}

	n.srv.Restart(func(o *sshdtest.Options) {
		o.HostKeys = nil
		for _, k := range n.srv.Keys() {
			if k.Signer.PublicKey().Type() == gossh.KeyAlgoED25519 {
				o.HostKeys = append(o.HostKeys, k)
			}
		}
	})
	if _, err := n.nodes(t, l); err != nil {
		t.Fatalf("after the RSA and ECDSA host keys were removed: %v", err)
	}

	fresh := sshdtest.NewHostKey(t, sshtest.ED25519)
	n.srv.Restart(func(o *sshdtest.Options) { o.HostKeys = []sshdtest.HostKey{fresh} })
	nodes, err := n.nodes(t, l)
	wantReason(t, nodes, err, "host_key_changed")
	want := "offered " + describeKey(fresh.Signer.PublicKey()) + ", pinned " + describeKey(ed25519)
	if d := Detail(err); d != want {
		t.Errorf("Detail() = %q, want %q", d, want)
	}
	if got, _, _ := pins.PinnedHostKey(id); !bytes.Equal(got, ed25519.Marshal()) {
		t.Error("the pin changed after a refused key")
	}
}
