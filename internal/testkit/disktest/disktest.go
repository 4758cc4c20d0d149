// Package disktest gives tests a small file system of their own that they can fill up, to see
// what a full disk does.
package disktest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// Small mounts a 1 MiB tmpfs in the test's temporary folder, unmounted when the test ends, and
// returns its folder. It skips the test where mounting needs rights the test does not have.
func Small(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a small tmpfs")
	}
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skipf("needs mount: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "disk")
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
	return dir
}

// Fill writes a filler file into dir until its file system is full (ENOSPC) and returns a
// function that removes the filler again.
func Fill(t testing.TB, dir string) (free func()) {
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
		t.Fatalf("filling %s: %v", dir, err)
	}
	return func() {
		t.Helper()
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}
}
