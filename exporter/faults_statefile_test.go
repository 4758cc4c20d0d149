package exporter

// Faults the exporter must survive (the fault matrix of docs/reliability.md): for each one it keeps
// serving /metrics from its last good snapshot, invents no finding, resolves none falsely, loses
// and doubles no announcement, and says what is wrong in one clear log line and a metric.

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/disktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// requireRoot skips a test that changes file attributes.
func requireRoot(t *testing.T, tool string) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skipf("needs root on Linux (%s)", tool)
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("needs %s: %v", tool, err)
	}
}

// chattr sets or clears the immutable attribute: even root cannot write to the file, through
// descriptors opened before too, which is what a file the exporter can no longer write looks like.
func chattr(t *testing.T, flag, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		t.Skipf("chattr %s is not supported here: %v %s", flag, err, out)
	}
}

// startImmutable starts the exporter on a cloud of one cluster, checked every 100ms, for a test
// that makes its state file immutable (chattr +i, which needs root), and waits for cycles cycles.
// The file is made writable again when the test ends.
func startImmutable(t *testing.T, cycles int) (*env, []simulator.Cluster, string) {
	t.Helper()
	requireRoot(t, "chattr")
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(cycles)
	path := e.statePath()
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	return e, cs, path
}

// TestFaultStateFileUnwritable: the state file becomes unwritable while the exporter runs
// (chattr +i). Announcing now could not be recorded as attempted, so it would be repeated after a
// restart: the notifier holds every call, says so once and counts the failure; /metrics and the
// findings go on. Writable again, everything is announced once; unwritable at a stop and
// writable at the next start, nothing is announced twice. At start-up an unwritable file stops
// the exporter with an error that does not tell to move the file away.
func TestFaultStateFileUnwritable(t *testing.T) {
	t.Parallel()
	e, cs, path := startImmutable(t, 2)

	// Unwritable while a finding opens: nothing is sent.
	chattr(t, "+i", path)
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("save failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= 3 })
	if f := e.findings(); len(f) != 1 {
		t.Fatalf("/metrics: findings %v", f)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("announced although the attempt could not be recorded: %q", w)
	}
	fails := e.logged(0, slog.LevelWarn, msgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "save state" || !strings.Contains(fails[0].Attrs["err"], "operation not permitted") {
		t.Fatalf("want one WARN line for the state file, got %+v", fails)
	}

	// The pins of deleted clusters cannot be dropped either: said once, not every cycle.
	if l := e.logged(0, slog.LevelError, msgPinsFailing); len(l) != 1 {
		t.Fatalf("want one ERROR line for the host keys' part of the state file, got %+v", l)
	}

	// Writable again: announced once, and each failing line has its INFO line.
	mark := e.logs.mark()
	chattr(t, "-i", path)
	e.waitFor("the announcement", func() bool { return len(e.storedAlerts()) == 1 && len(e.annotations()) == 1 })
	e.nextCycles(2)
	if l := e.logged(mark, slog.LevelInfo, "Notifier call works again"); len(l) != 1 || l[0].Attrs["op"] != "save state" {
		t.Fatalf("recovery lines: %+v", l)
	}
	if l := e.logged(mark, slog.LevelInfo, "The state file is written again"); len(l) != 1 {
		t.Fatalf("recovery lines of the host keys: %+v", l)
	}

	// Unwritable while the finding clears, and still at the stop: the resolution is held, and
	// sent once by the next process.
	chattr(t, "+i", path)
	failures := e.metrics()["cks_drift_notification_failures_total"]
	restore()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.waitFor("save failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= failures+2 })
	if n := count(e.annotations(), "[INFO]"); n != 0 {
		t.Fatalf("resolution announced although the attempt could not be recorded")
	}
	e.stop()

	// At start-up: a clear error, not "move the file away".
	_, err = New(Options{ConfigFile: e.cfg})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cannot be opened for writing") ||
		strings.Contains(err.Error(), "move the file away") {
		t.Fatalf("New with an unwritable state file: %v", err)
	}

	chattr(t, "-i", path)
	e.start()
	e.waitFor("the resolution", func() bool { return count(e.annotations(), "[INFO]") == 1 })
	e.nextCycles(3)
	e.oneEpisode(vmSideAgain)
}

// TestFaultStateDiskFull: the state file's file system is full (a 1 MiB tmpfs filled up) when a
// batch of findings makes the notifier's document outgrow the pages the file already has. The
// write fails with ENOSPC: nothing is announced, one WARN line names the error and the failures
// are counted; with room again each finding is announced once, and a restart sends nothing more.
func TestFaultStateDiskFull(t *testing.T) {
	t.Parallel()
	disk := disktest.Small(t)
	const strays = 40
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", fmt.Sprintf("  max_alerts_per_cycle: %d\n  max_annotations_per_cluster: %d\n", strays, strays))
	e.editConfig("path: "+e.statePath(), "path: "+filepath.Join(disk, "state.db"))
	e.start()
	e.nextCycles(2)
	free := disktest.Fill(t, disk)

	var names []string
	for i := range strays {
		name, _, err := e.sim.AddStrayVM(cs[0].ID, time.Now().Add(-20*time.Minute-time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	e.waitFor("the findings", func() bool { return len(e.findings()) == strays })
	e.waitFor("save failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= 2 })
	fails := e.logged(0, slog.LevelWarn, msgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "save state" || !strings.Contains(fails[0].Attrs["err"], "no space left on device") {
		t.Fatalf("want one WARN line for the full disk, got %+v", fails)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("announced although the attempts could not be recorded: %d calls", len(w))
	}

	free()
	e.waitFor("the announcements", func() bool { return len(e.storedAlerts()) == strays })
	e.nextCycles(2)
	e.stop()
	e.start()
	e.nextCycles(3)
	ann, rows := e.annotations(), e.alertRows()
	for _, name := range names {
		if count(ann, "[WARN] VM "+name+" (") != 1 || count(rows, "VM "+name+" (") != 1 {
			t.Fatalf("%s: %d annotations, %d alerts; want one each", name, count(ann, "[WARN] VM "+name+" ("), count(rows, "VM "+name+" ("))
		}
	}
	if len(ann) != strays || len(rows) != strays {
		t.Fatalf("%d annotations and %d alerts for %d findings", len(ann), len(rows), strays)
	}
}

// TestFaultStateFileCorrupted: a state file damaged between two runs stops start-up with an
// error that names the file and how to start fresh, whatever the damage; the file is left
// exactly as it was, and moved away the exporter starts.
func TestFaultStateFileCorrupted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, path string)
		errIn   string
	}{
		{name: "meta pages overwritten", errIn: "cannot be read", corrupt: func(t *testing.T, path string) {
			b := readFile(t, path)
			copy(b, bytes.Repeat([]byte("garbage!"), 2*4096/8))
			writeFile(t, path, b)
		}},
		{name: "a page of the notifier's bucket damaged", errIn: "cannot be read", corrupt: func(t *testing.T, path string) {
			b := readFile(t, path)
			i := bytes.LastIndex(b, []byte(`{"clusters"`))
			if i < 64 {
				t.Fatal("the notifier's document is not in the file")
			}
			for j := i - 40; j < i; j++ { // the inline bucket's page and element headers
				b[j] ^= 0xff
			}
			writeFile(t, path, b)
		}},
		{name: "notifier document not JSON", errIn: "notifier state cannot be decoded", corrupt: func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			err = db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("notifier")).Put([]byte("state"), []byte(`{"clusters": {"x`))
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig("  interval: 100ms\n", "")
			e.start()
			e.openVMFinding(cs[0])
			e.stop()
			path := e.statePath()
			tc.corrupt(t, path)
			damaged := readFile(t, path)

			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("New panicked on a damaged state file: %v", r)
					}
				}()
				var exp *Exporter
				exp, err = New(Options{ConfigFile: e.cfg})
				if exp != nil {
					_ = exp.Close()
				}
			}()
			if err == nil {
				t.Fatal("the exporter started with a damaged state file")
			}
			for _, want := range []string{"state file " + path, tc.errIn, "to start fresh, stop the exporter and move the file away"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if !bytes.Equal(readFile(t, path), damaged) {
				t.Error("the damaged state file was written to")
			}

			if err := os.Rename(path, path+".damaged"); err != nil {
				t.Fatal(err)
			}
			exp, err := New(Options{ConfigFile: e.cfg})
			if err != nil {
				t.Fatalf("New after moving the file away: %v", err)
			}
			_ = exp.Close()
		})
	}
}

// TestFaultHistoryUnwritable: the state file is unwritable when a finding clears, so the history
// of resolved findings cannot be written. That is said once, not every cycle, and the history is
// written as soon as the file takes it again, with a line saying so: a restart after that still
// shows the resolved finding.
func TestFaultHistoryUnwritable(t *testing.T) {
	t.Parallel()
	e, cs, path := startImmutable(t, 2)
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("the announcement", func() bool { return len(e.storedAlerts()) == 1 && len(e.annotations()) == 1 })

	chattr(t, "+i", path)
	restore()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.waitFor("the history's ERROR line", func() bool { return len(e.logged(0, slog.LevelError, msgHistoryFailing)) > 0 })
	e.nextCycles(3)
	if l := e.logged(0, slog.LevelError, msgHistoryFailing); len(l) != 1 || !strings.Contains(l[0].Attrs["err"], "operation not permitted") {
		t.Fatalf("want one ERROR line for the history, got %+v", l)
	}

	chattr(t, "-i", path)
	e.waitFor("the history's recovery line", func() bool { return len(e.logged(0, slog.LevelInfo, msgHistoryWritten)) > 0 })
	e.nextCycles(2)
	if l := e.logged(0, slog.LevelInfo, msgHistoryWritten); len(l) != 1 {
		t.Fatalf("want one recovery line for the history, got %+v", l)
	}
	e.stop()
	e.start()
	e.nextCycles(1)
	r, raw := e.findingsReport()
	if len(r.Clusters) != 1 || len(r.Clusters[0].Resolved) != 1 || r.Clusters[0].Resolved[0].VMName != cs[0].VMs[1] {
		t.Fatalf("after a restart the resolved finding written late is lost:\n%s", raw)
	}
}
