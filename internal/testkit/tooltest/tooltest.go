// Package tooltest finds the programs that tests run (promtool, Prometheus, Alertmanager), so
// that a machine without them skips those tests and a CI machine without them fails.
package tooltest

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the environment variable CI says the tests run in CI.
func InCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// Require returns the path of a command found on PATH (or given as an absolute path), skipping
// the test when it is missing, or failing it in CI, so that CI cannot pass silently. With -short
// (make test-short, the inner loop) a test that runs a real program is skipped.
func Require(t testing.TB, name, hint string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(name + " is a real program: skipped with -short")
	}
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if InCI() {
		t.Fatalf("%s not installed but CI is set: %s", name, hint)
	}
	t.Skip(name + " not installed: " + hint)
	return ""
}

// Unavailable skips the test because something it needs is missing (root, a writable system
// directory), or fails it in CI, where .ci/run provides everything the tests need.
func Unavailable(t testing.TB, what, hint string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s but CI is set: %s", what, hint)
	}
	t.Skip(what + ": " + hint)
}
