package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// smallDisk mounts a 1 MiB tmpfs for the test and returns its folder and a function that fills
// it up; it skips where that needs rights the test does not have.
func smallDisk(t *testing.T) (dir string, fill func() (remove func())) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a small tmpfs")
	}
	dir = filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if exec.Command("umount", dir).Run() != nil {
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir, func() func() {
		t.Helper()
		filler := filepath.Join(dir, "filler")
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		for block := make([]byte, 4096); err == nil; {
			_, err = f.Write(block)
		}
		_ = f.Close()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("filling the tmpfs: %v", err)
		}
		return func() {
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDiskFullIsNotDamage: a state file that cannot be created, or written, because its file
// system is full is reported as a full disk, never as a damaged file to be moved away (which would
// announce every open finding again); with space again the file opens with everything it held.
func TestDiskFullIsNotDamage(t *testing.T) {
	dir, fill := smallDisk(t)
	notDamage := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, ErrDiskFull) || strings.Contains(err.Error(), "move the file away") {
			t.Fatalf("error on a full disk: %v; want ErrDiskFull and no advice to move the file away", err)
		}
	}

	t.Run("new file", func(t *testing.T) {
		free := fill()
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
		free := fill()
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
