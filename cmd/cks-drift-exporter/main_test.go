package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

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
