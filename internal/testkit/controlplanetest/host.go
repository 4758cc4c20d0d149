package controlplanetest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// ServiceUser creates a system user and group of a unique name, as a package creates the
// exporter's service user, with its home in a directory of the test, and removes both when the
// test ends. It needs root and useradd: without them the test is skipped, or fails in CI.
func ServiceUser(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "a service user needs root", "run the tests as root (.ci/run does)")
	}
	tooltest.Require(t, "useradd", "apt-get install passwd")
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "cksdsvc" + hex.EncodeToString(b)
	home := filepath.Join(PassableDir(t), "home")
	out, err := exec.Command("useradd", "--system", "--user-group", "--create-home", "--home-dir", home,
		"--shell", "/usr/sbin/nologin", name).CombinedOutput()
	if err != nil {
		t.Fatalf("useradd %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", "-f", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	return name
}

// PassableDir is a new directory of the test that every user may pass through (mode 0755, its
// parent too), for files another user must reach.
func PassableDir(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// ModeOwner is "<mode> <user>:<group>" of path, as ls -l shows them ("-rw-r----- root:adm").
func ModeOwner(t testing.TB, path string) string {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	owner, group := strconv.Itoa(int(sys.Uid)), strconv.Itoa(int(sys.Gid))
	if u, err := user.LookupId(owner); err == nil {
		owner = u.Username
	}
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	return fmt.Sprintf("%s %s:%s", st.Mode(), owner, group)
}

// RunScript runs a /bin/sh script with args as the docs tell an operator to, "sh <file> args",
// with the control plane's kubectl first on PATH, and returns what it wrote to stdout and stderr.
func RunScript(t testing.TB, c *ControlPlane, script string, args ...string) (string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "script.sh")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("sh", append([]string{file}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(c.kubectl)+":"+os.Getenv("PATH"), "HOME="+c.dir)
	err := cmd.Run()
	return strings.ReplaceAll(out.String(), "\r", ""), err
}
