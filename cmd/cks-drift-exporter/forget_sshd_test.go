package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	nodessh "github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// TestForgetHostKeyRecoversRealNode: a control node re-installed with new host keys is refused
// (host_key_changed) until --ssh.forget-host-key drops its pin from the state file; the next
// contact pins the new ed25519 key and lists the nodes.
func TestForgetHostKeyRecoversRealNode(t *testing.T) {
	key, _, err := sshtest.GenerateKey(sshtest.ED25519)
	if err != nil {
		t.Fatal(err)
	}
	srv := sshdtest.Start(t, sshdtest.Options{AuthorizedKeys: []ssh.PublicKey{key.PublicKey()}})
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	cfgFile := filepath.Join(dir, "cks.yml")
	yml := "cloudstack: {endpoint: https://cloud.example.com/client/api, api_key: k, secret_key: s}\nstorage: {path: " + db + "}\n"
	if err := os.WriteFile(cfgFile, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cluster := collector.Cluster{ID: "7a1d2c3b-0000-4000-8000-0000000000f1", Name: "real",
		SSH: collector.SSHTarget{Host: srv.Host(), Port: srv.Port()}}
	// list opens the state file, lists the nodes with pins kept there and closes it again, as
	// the exporter's runs around the stop for --ssh.forget-host-key do.
	list := func() error {
		store, err := state.Open(db, false)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		l, err := nodessh.NewLister(nodessh.Options{User: srv.User(), Signer: key, Policy: config.HostKeyPin, Pins: store,
			Timeout: 10 * time.Second, Command: "sudo kubectl get nodes -o name", MaxNodes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.Nodes(t.Context(), cluster)
		return err
	}

	if err := list(); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	fresh := sshdtest.NewHostKey(t, sshtest.ED25519)
	srv.Restart(func(o *sshdtest.Options) { o.HostKeys = []sshdtest.HostKey{fresh} })
	if err := list(); nodessh.Reason(err) != "host_key_changed" {
		t.Fatalf("after the re-install: %v, want host_key_changed", err)
	}
	if code := forgetHostKeys(cfgFile, []string{cluster.ID}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("forgetHostKeys exit %d", code)
	}
	if err := list(); err != nil {
		t.Fatalf("after --ssh.forget-host-key: %v", err)
	}
	store, err := state.Open(db, true)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	pinned, ok, _ := store.PinnedHostKey(cluster.ID + " " + srv.Addr())
	if !ok || string(pinned) != string(fresh.Signer.PublicKey().Marshal()) {
		t.Errorf("pinned %x (ok %v), want the new ed25519 key", pinned, ok)
	}
}
