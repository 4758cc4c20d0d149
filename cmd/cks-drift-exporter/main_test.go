package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// TestForgetHostKey: after a control node was re-installed, --ssh.forget-host-key drops exactly
// that cluster's pin, so that the next contact pins the new key; other pins stay.
func TestForgetHostKey(t *testing.T) {
	cfg, db := pinnedState(t, "c1 203.0.113.1:2222", "c2 203.0.113.2:2222")

	if code := forgetHostKeys(cfg, []string{"c1"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("forgetHostKeys exit %d", code)
	}

	s, err := state.Open(db, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok, _ := s.PinnedHostKey("c1 203.0.113.1:2222"); ok {
		t.Error("the pin of c1 is still there")
	}
	if _, ok, _ := s.PinnedHostKey("c2 203.0.113.2:2222"); !ok {
		t.Error("the pin of c2 was dropped too")
	}
}

// pinnedState writes a configuration whose state file holds a pinned host key for each id
// ("<cluster uuid> <address>"), and returns the paths of both.
func pinnedState(t *testing.T, ids ...string) (cfg, db string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "state.db")
	cfg = filepath.Join(dir, "cks.yml")
	yml := "cloudstack: {endpoint: https://cloud.example.com/client/api, api_key: k, secret_key: s}\nstorage: {path: " + db + "}\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(db, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := s.PinHostKey(id, []byte("key of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg, db
}

// TestNewerStateExits4: after a rollback, a state file of a newer format stops every mode that
// opens it with exit code 4 (exporter.ExitNewerState), before any call to CloudStack: the
// configuration's endpoint is a closed port, so a call would fail the start differently.
func TestNewerStateExits4(t *testing.T) {
	cfg, db := pinnedState(t, "c1 203.0.113.1:2222")
	bumpFormat(t, db, "3")
	for _, args := range [][]string{{}, {"--once"}} {
		os.Args = append([]string{"cks-drift-exporter", "--config.file=" + cfg, "--web.listen-address=127.0.0.1:0"}, args...)
		if code := run(); code != exporter.ExitNewerState {
			t.Errorf("cks-drift-exporter %v: exit %d, want %d", args, code, exporter.ExitNewerState)
		}
	}
	if code := forgetHostKeys(cfg, []string{"c1"}, io.Discard, io.Discard); code != exporter.ExitNewerState {
		t.Errorf("--ssh.forget-host-key: exit %d, want %d", code, exporter.ExitNewerState)
	}
}

// bumpFormat marks the state file as a newer release would.
func bumpFormat(t *testing.T, path, format string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte(format)) }); err != nil {
		t.Fatal(err)
	}
}
