package state

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/disktest"
)

// TestDiskFullIsNotDamage: a state file that cannot be created, or written, because its file
// system is full is reported as a full disk, never as a damaged file to be moved away (which would
// announce every open finding again); with space again the file opens with everything it held.
func TestDiskFullIsNotDamage(t *testing.T) {
	dir := disktest.Small(t)
	notDamage := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, ErrDiskFull) || strings.Contains(err.Error(), "move the file away") {
			t.Fatalf("error on a full disk: %v; want ErrDiskFull and no advice to move the file away", err)
		}
	}

	t.Run("new file", func(t *testing.T) {
		free := disktest.Fill(t, dir)
		defer free()
		path := filepath.Join(dir, "new.db")
		_, err := Open(path, false)
		notDamage(t, err)
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("the error does not name the file: %v", err)
		}
	})

	t.Run("writes", func(t *testing.T) {
		path := filepath.Join(dir, "state.db")
		s, err := Open(path, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PinHostKey("kept", []byte("key")); err != nil {
			t.Fatal(err)
		}
		free := disktest.Fill(t, dir)
		key := bytes.Repeat([]byte("k"), 64<<10)
		for i := 0; err == nil; i++ {
			if i > 64 {
				t.Fatal("1 MiB of tmpfs took more than 4 MiB of host keys")
			}
			err = s.PinHostKey(fmt.Sprint("grow-", i), key)
		}
		notDamage(t, err)
		notDamage(t, s.SaveNotifierState(bytes.Repeat([]byte("n"), 256<<10)))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		free()
		s, err = Open(path, false)
		if err != nil {
			t.Fatalf("reopened with space again: %v", err)
		}
		defer s.Close()
		if k, ok, err := s.PinnedHostKey("kept"); err != nil || !ok || string(k) != "key" {
			t.Fatalf("the pin written before the disk was full: %q %v %v", k, ok, err)
		}
	})
}
