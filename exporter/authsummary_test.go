package exporter

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestSSHAuthFailureEverywhereIsOneLine: a key that no control node accepts is one WARN line
// naming ssh.user and ssh.private_key_file, not one line per cluster; once the right key is back,
// one INFO line ends it.
func TestSSHAuthFailureEverywhereIsOneLine(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "a"}, simulator.ClusterSpec{Name: "b"}, simulator.ClusterSpec{Name: "c"})
	e.writeConfig("  interval: 100ms\n", "")
	_, pem, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(e.dir, "other_key")
	if err := os.WriteFile(other, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	e.editConfig(filepath.Join(e.dir, "id_ed25519"), other)
	e.start()
	e.waitFor("three unreachable clusters", func() bool {
		return e.metrics()[`cks_drift_kubectl_failures_total{reason="auth"}`] >= 3
	})
	e.nextCycles(3)
	var summary, perCluster int
	for _, l := range e.logs.since(0, slog.LevelWarn) {
		switch {
		case strings.HasPrefix(l.Msg, "The control nodes of most clusters refused the SSH key"):
			summary++
			if l.Attrs["ssh_private_key_file"] != other || l.Attrs["ssh_user"] == "" || l.Attrs["refused"] != "3" {
				t.Errorf("summary line: %+v", l)
			}
		case l.Attrs["reason"] == "auth":
			perCluster++
		}
	}
	if summary != 1 || perCluster != 0 {
		t.Fatalf("%d summary lines and %d per-cluster lines, want 1 and 0", summary, perCluster)
	}

	mark := e.logs.mark()
	e.editConfig(other, filepath.Join(e.dir, "id_ed25519"))
	e.postReload()
	e.waitFor("the INFO line that ends it", func() bool { return len(e.logged(mark, slog.LevelInfo, msgAuthAgain)) > 0 })
	e.nextCycles(2)
	if again := e.logged(mark, slog.LevelInfo, msgAuthAgain); len(again) != 1 || again[0].Attrs["refused"] != "0" {
		t.Fatalf("want one %q line with refused=0, got %+v", msgAuthAgain, again)
	}
}
