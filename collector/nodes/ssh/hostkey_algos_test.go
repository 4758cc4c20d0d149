package ssh

import (
	"bytes"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// debianHostKeys gives the fixture's node the three host keys Debian's sshd generates, in the
// order sshd_config lists them.
func debianHostKeys(t *testing.T, f *fixture) map[string]gossh.Signer {
	t.Helper()
	keys := map[string]gossh.Signer{}
	var all []gossh.Signer
	for _, kind := range []string{sshtest.RSA, sshtest.ECDSA, sshtest.ED25519} {
		k, _, err := sshtest.GenerateKey(kind)
		if err != nil {
			t.Fatal(err)
		}
		keys[kind] = k
		all = append(all, k)
	}
	f.srv.SetHostKeys(all...)
	return keys
}

// TestStrictPartialKnownHosts: a node with RSA, ECDSA and ed25519 host keys whose known_hosts
// entry holds only one of them is accepted, because the client asks for the types it knows (as
// OpenSSH does) instead of the ssh package's default, which puts ECDSA first.
func TestStrictPartialKnownHosts(t *testing.T) {
	for _, known := range []string{sshtest.ED25519, sshtest.RSA, sshtest.ECDSA} {
		t.Run(known, func(t *testing.T) {
			f := newFixture(t)
			keys := debianHostKeys(t, f)
			file := writeKnownHosts(t, f.srv.Addr(), keys[known].PublicKey())
			l := f.lister(t, func(o *Options) { o.Policy, o.KnownHostsFile = config.HostKeyStrict, file })
			if nodes, err := f.nodes(t, l); err != nil {
				t.Fatalf("Nodes() = %q, %v; want the node accepted by its %s key", nodes, err, known)
			}
		})
	}
}

// TestPinKeyType: the first contact pins the ed25519 key, as ssh(1) would show it; later
// handshakes ask for the pinned type only, so removing the node's other host keys changes
// nothing, while losing the pinned one is a changed key with both sides named.
func TestPinKeyType(t *testing.T) {
	f := newFixture(t)
	keys := debianHostKeys(t, f)
	pins := &MemoryPins{}
	l := f.lister(t, func(o *Options) { o.Policy, o.Pins = config.HostKeyPin, pins })
	id := pinID(f.cluster.ID, f.srv.Addr())

	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	if got, _, _ := pins.PinnedHostKey(id); !bytes.Equal(got, keys[sshtest.ED25519].PublicKey().Marshal()) {
		t.Fatalf("first contact pinned %s, want the ed25519 key", describeWire(got))
	}
	f.srv.SetHostKeys(keys[sshtest.ED25519])
	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("after the other host keys were removed: %v", err)
	}
	f.srv.SetHostKeys(keys[sshtest.RSA], keys[sshtest.ECDSA])
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "host_key_changed")
	if d := Detail(err); !strings.Contains(d, "ssh-ed25519") {
		t.Errorf("Detail() = %q, want the pinned type named", d)
	}
}

// TestPinFromAnOlderVersion: a pin of another type than the one this version would pick first
// (earlier versions pinned ECDSA, the ssh package's first choice) keeps being honoured.
func TestPinFromAnOlderVersion(t *testing.T) {
	f := newFixture(t)
	keys := debianHostKeys(t, f)
	pins := &MemoryPins{}
	if err := pins.PinHostKey(pinID(f.cluster.ID, f.srv.Addr()), keys[sshtest.ECDSA].PublicKey().Marshal()); err != nil {
		t.Fatal(err)
	}
	l := f.lister(t, func(o *Options) { o.Policy, o.Pins = config.HostKeyPin, pins })
	if nodes, err := f.nodes(t, l); err != nil {
		t.Fatalf("Nodes() = %q, %v; want the ECDSA pin honoured", nodes, err)
	}
}

func TestAlgorithmsFor(t *testing.T) {
	got := algorithmsFor([]string{gossh.KeyAlgoRSA, gossh.KeyAlgoED25519, "sk-ssh-ed25519@openssh.com", gossh.KeyAlgoED25519})
	want := []string{gossh.KeyAlgoED25519, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, "sk-ssh-ed25519@openssh.com"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("algorithmsFor() = %v, want %v", got, want)
	}
}
