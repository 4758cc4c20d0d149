package state

import (
	"path/filepath"
	"testing"
)

func TestResolvedSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := s.LoadResolved(); err != nil || doc != nil {
		t.Fatalf("LoadResolved of a new file = %q, %v; want nothing", doc, err)
	}
	if err := s.SaveResolved([]byte(`[{"cluster_id":"c1"}]`)); err != nil {
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
	doc, err := s.LoadResolved()
	if err != nil || string(doc) != `[{"cluster_id":"c1"}]` {
		t.Fatalf("LoadResolved = %q, %v", doc, err)
	}
	if notifier, _ := s.LoadNotifierState(); notifier != nil {
		t.Errorf("the history landed in the notifier's document: %q", notifier)
	}
}
