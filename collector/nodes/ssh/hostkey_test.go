package ssh

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// writeKnownHosts writes a known_hosts file with one line per address and key.
func writeKnownHosts(t *testing.T, addr string, keys ...gossh.PublicKey) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(knownhosts.Line([]string{knownhosts.Normalize(addr)}, k) + "\n")
	}
	path := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newHostKey(t *testing.T) gossh.Signer {
	t.Helper()
	k, _, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestStrict(t *testing.T) {
	f := newFixture(t)
	stranger := newHostKey(t).PublicKey()
	tests := []struct {
		name   string
		file   string
		reason string // "" means accepted
	}{
		{"known", writeKnownHosts(t, f.srv.Addr(), f.srv.HostKey()), ""},
		{"unknown host", writeKnownHosts(t, "192.0.2.1:2222", f.srv.HostKey()), "host_key_unknown"},
		{"empty file", writeKnownHosts(t, f.srv.Addr()), "host_key_unknown"},
		{"other key", writeKnownHosts(t, f.srv.Addr(), stranger), "host_key_changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.srv.Commands()
			l := f.lister(t, func(o *Options) { o.Policy, o.KnownHostsFile = config.HostKeyStrict, tt.file })
			nodes, err := f.nodes(t, l)
			if tt.reason == "" {
				if err != nil || len(nodes) != 2 {
					t.Fatalf("Nodes() = %q, %v; want two nodes", nodes, err)
				}
				return
			}
			wantReason(t, nodes, err, tt.reason)
			if n := f.srv.Commands(); n != before {
				t.Errorf("server ran %d commands after a refused host key", n-before)
			}
		})
	}
}

// TestRunPinsPinNothing: --preflight's store trusts the first key for the run, and the log line
// says that nothing was pinned.
func TestRunPinsPinNothing(t *testing.T) {
	f := newFixture(t)
	var logs logBuffer
	l := f.lister(t, func(o *Options) { o.Policy, o.Pins, o.Logger = config.HostKeyPin, &RunPins{}, logs.logger() })
	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	got := logs.String()
	if strings.Contains(got, "Pinned") || !strings.Contains(got, `msg="Trusted the SSH host key of a control node for this run only; nothing is pinned"`) ||
		!strings.Contains(got, "fingerprint="+gossh.FingerprintSHA256(f.srv.HostKey())) {
		t.Errorf("first contact with RunPins logged:\n%s", got)
	}
}

func TestPin(t *testing.T) {
	f := newFixture(t)
	pins := &MemoryPins{}
	var logs logBuffer
	l := f.lister(t, func(o *Options) { o.Policy, o.Pins, o.Logger = config.HostKeyPin, pins, logs.logger() })
	id := f.cluster.ID + " " + f.srv.Addr()
	first := f.srv.HostKey()

	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	pinned, ok, _ := pins.PinnedHostKey(id)
	if !ok || !bytes.Equal(pinned, first.Marshal()) {
		t.Fatalf("first contact pinned %x (ok=%v) under %q, want the server's key", pinned, ok, id)
	}
	// Operators learn which key was trusted: at info level, with its fingerprint.
	if want := `level=INFO msg="Pinned the SSH host key of a control node on first contact"`; !strings.Contains(logs.String(), want) ||
		!strings.Contains(logs.String(), "fingerprint="+gossh.FingerprintSHA256(first)) {
		t.Errorf("first pin not logged at info level with its fingerprint; logs:\n%s", logs.String())
	}
	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("same key: %v", err)
	}

	f.srv.SetHostKey(newHostKey(t))
	logged := logs.String()
	for i := range 2 { // still refused on the next call: the new key was not pinned
		nodes, err := f.nodes(t, l)
		wantReason(t, nodes, err, "host_key_changed")
		if i == 0 && err != nil && !strings.Contains(err.Error(), gossh.FingerprintSHA256(first)) {
			t.Errorf("error %v does not name the pinned key", err)
		}
	}
	if got := logs.String(); got != logged {
		t.Errorf("a changed host key was logged by the lister; new logs:\n%s", strings.TrimPrefix(got, logged))
	}
	if pinned, _, _ := pins.PinnedHostKey(id); !bytes.Equal(pinned, first.Marshal()) {
		t.Error("the pin changed after a refused key")
	}
	if n := f.srv.Commands(); n != 2 {
		t.Errorf("server ran %d commands, want 2 (none after the key changed)", n)
	}

	t.Run("pins per cluster", func(t *testing.T) {
		c := f.cluster
		c.ID = "6f1d2c3b-0000-4000-8000-000000000002"
		if _, err := l.Nodes(t.Context(), c); err != nil {
			t.Fatalf("another cluster on the same address: %v", err)
		}
	})
	t.Run("no cluster id", func(t *testing.T) {
		c := f.cluster
		c.ID = ""
		nodes, err := l.Nodes(t.Context(), c)
		wantReason(t, nodes, err, "other")
	})
}

func TestInsecure(t *testing.T) {
	f := newFixture(t)
	var logs logBuffer
	l := f.lister(t, func(o *Options) { o.Policy, o.Logger = config.HostKeyInsecure, logs.logger() })
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("insecure policy did not warn at construction; logs:\n%s", logs.String())
	}
	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	f.srv.SetHostKey(newHostKey(t))
	if _, err := f.nodes(t, l); err != nil {
		t.Fatalf("Nodes after the host key changed: %v", err)
	}
}
