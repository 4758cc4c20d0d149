// Package previousrelease names, for tests, the release an upgrade starts from: the commit that
// packaging/upgrade-from holds, which scripts/package-test.sh installs as well.
package previousrelease

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Commit returns the commit packaging/upgrade-from names (its first line that is not a comment),
// found in the nearest directory above the test's that has the file. The test fails when the file
// cannot be read, and skips when this clone does not hold the commit (a shallow clone).
func Commit(t testing.TB, git string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "packaging", "upgrade-from"))
		if err == nil {
			commit := firstLine(string(b))
			if commit == "" {
				t.Fatal("packaging/upgrade-from names no commit")
			}
			if err := exec.Command(git, "-C", dir, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
				t.Skipf("commit %s (packaging/upgrade-from) is not in this clone: %v", commit, err)
			}
			return commit
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no packaging/upgrade-from above the test's directory")
		}
		dir = parent
	}
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}
