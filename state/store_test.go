package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostKeysSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "state.db")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PinHostKey("k1 10.0.0.1:2222", []byte("key-1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, ok, err := s.PinnedHostKey("k1 10.0.0.1:2222")
	if err != nil || !ok || string(key) != "key-1" {
		t.Fatalf("PinnedHostKey = %q, %v, %v; want key-1", key, ok, err)
	}
	if _, ok, _ := s.PinnedHostKey("other"); ok {
		t.Error("unknown id reported as pinned")
	}
	if err := s.ForgetHostKeys(func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.PinnedHostKey("k1 10.0.0.1:2222"); ok {
		t.Error("pin survived ForgetHostKeys")
	}
}

func TestCorruptFileStopsStartUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	junk := []byte(strings.Repeat("not a bbolt file ", 1000))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, false)
	if err == nil {
		t.Fatal("corrupt state file opened without error")
	}
	for _, want := range []string{path, "to start fresh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != string(junk) {
		t.Error("corrupt state file was changed")
	}
}

func TestLockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(path, false); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second Open = %v, want a locked error", err)
	}
}
