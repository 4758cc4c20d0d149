package ssh

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// TestRealSSHDPinFollowsAMovedRule: the tenant owns its port-forwarding rules, so the cluster's
// SSH address can move. At a new address with the pinned key the pin moves there (the old one is
// dropped); with another key the node is refused as host_key_changed, as at the old address, and
// the pins stay; both are logged at WARN and counted. Forgetting the cluster's pins
// (--ssh.forget-host-key) lets the next contact pin the new key.
func TestRealSSHDPinFollowsAMovedRule(t *testing.T) {
	n := newRealNode(t, sshtest.ED25519, nil)
	// The state file, as the exporter keeps pins, and as --ssh.forget-host-key edits them.
	pins, err := state.Open(filepath.Join(t.TempDir(), "state.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pins.Close() })
	var logs logBuffer
	metrics := NewMetrics()
	l := n.lister(t, func(o *Options) {
		o.Policy, o.Pins, o.Metrics, o.Logger = config.HostKeyPin, pins, metrics, logs.logger()
	})
	first := pinID(n.cluster.ID, n.srv.Addr())
	if _, err := n.nodes(t, l); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	pinned, _, _ := pins.PinnedHostKey(first)

	// The rule moves to another port; the same node (the same host keys) answers there.
	same := sshdtest.Start(t, sshdtest.Options{HostKeys: n.srv.Keys(), AuthorizedKeys: []gossh.PublicKey{n.key.PublicKey()}})
	n.cluster.SSH.Port, n.cluster.SSH.User = same.Port(), same.User()
	if _, err := l.Nodes(t.Context(), n.cluster); err != nil {
		t.Fatalf("the same node at a new address: %v (sshd log:\n%s)", err, same.Log())
	}
	moved := pinID(n.cluster.ID, same.Addr())
	if got, ok, _ := pins.PinnedHostKey(moved); !ok || !bytes.Equal(got, pinned) {
		t.Errorf("pin at the new address: %s (%v), want the key pinned before", describeWire(got), ok)
	}
	if _, ok, _ := pins.PinnedHostKey(first); ok {
		t.Error("the old address's pin was kept")
	}
	if got := testutil.ToFloat64(metrics.HostKeyAddressChanges.WithLabelValues(addressMoved)); got != 1 {
		t.Errorf("moved counted %v times, want 1", got)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "the pin moved") {
		t.Errorf("no WARN line for the move:\n%s", logs.String())
	}

	// The tenant points the rule at a node with another key.
	other := sshdtest.Start(t, sshdtest.Options{HostKeys: []sshdtest.HostKey{sshdtest.NewHostKey(t, sshtest.ED25519)}, AuthorizedKeys: []gossh.PublicKey{n.key.PublicKey()}})
	n.cluster.SSH.Port, n.cluster.SSH.User = other.Port(), other.User()
	nodes, err := l.Nodes(t.Context(), n.cluster)
	wantReason(t, nodes, err, reasonHostKeyChanged)
	if !strings.Contains(Detail(err), "pinned "+describeWire(pinned)+" at "+same.Addr()) {
		t.Errorf("Detail() = %q, want the key pinned at %s", Detail(err), same.Addr())
	}
	if got, _ := pins.ClusterHostKeys(n.cluster.ID); len(got) != 1 || !bytes.Equal(got[moved], pinned) {
		t.Errorf("pins after the refusal: %d, want only the one at %s", len(got), same.Addr())
	}
	if got := testutil.ToFloat64(metrics.HostKeyAddressChanges.WithLabelValues(addressRefused)); got != 1 {
		t.Errorf("refused counted %v times, want 1", got)
	}
	if !strings.Contains(logs.String(), "another host key than the one pinned for its cluster; refused") {
		t.Errorf("no WARN line for the refusal:\n%s", logs.String())
	}

	// What --ssh.forget-host-key does: the cluster's pins are removed; the new key is pinned.
	if err := pins.ForgetHostKeys(func(id string) bool { return PinCluster(id) != n.cluster.ID }); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Nodes(t.Context(), n.cluster); err != nil {
		t.Fatalf("after forgetting the cluster's pins: %v", err)
	}
	if _, ok, _ := pins.PinnedHostKey(pinID(n.cluster.ID, other.Addr())); !ok {
		t.Error("the new key was not pinned after the pins were forgotten")
	}
}
