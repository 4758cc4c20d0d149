package exporter

// The fault matrix of RELIABILITY.md: every fault the exporter must survive that the other tests
// of this package do not already cover. For each one the exporter must keep serving /metrics
// from its last good snapshot, invent no finding, resolve none falsely, lose and double no
// announcement, and say what is wrong in one clear log line and a metric.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

const (
	faultMsgInventory  = "Could not read the inventory from CloudStack, keeping the previous findings"
	faultMsgKubectl    = "Could not list the Kubernetes nodes of the cluster; comparing its VM map with the VMs in CloudStack only"
	faultMsgNotifier   = "Notifier call failed, it is retried on the next cycle"
	faultVMSideAgain   = "matches the VMs of the cluster in CloudStack again"
	faultNodeSideAgain = "matches the Kubernetes nodes of the cluster again"
)

// faultEditConfig replaces old with repl in the exporter's configuration file.
func (e *env) faultEditConfig(old, repl string) {
	e.t.Helper()
	b, err := os.ReadFile(e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		e.t.Fatalf("the configuration has no %q:\n%s", old, b)
	}
	if err := os.WriteFile(e.cfg, []byte(strings.Replace(string(b), old, repl, 1)), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// faultReload asks the running exporter to re-read its configuration and expects it to succeed.
func (e *env) faultReload() {
	e.t.Helper()
	if code := post(e.t, e.url+"/-/reload"); code != http.StatusOK {
		e.t.Fatalf("reload: %d", code)
	}
}

// faultAnnotations returns the texts of the annotations CloudStack holds.
func (e *env) faultAnnotations() []string {
	var out []string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Annotations {
			if a != nil && !a.Removed {
				out = append(out, a.Annotation)
			}
		}
	})
	return out
}

// faultAlertRows returns the description of every alert CloudStack stored, archived or not.
func (e *env) faultAlertRows() []string {
	var out []string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			if a != nil {
				out = append(out, a.Description)
			}
		}
	})
	return out
}

// faultLogged returns the lines at level or above faultLogged since mark whose message is msg.
func (e *env) faultLogged(mark int, level slog.Level, msg string) []logLine {
	var out []logLine
	for _, l := range e.logs.since(mark, level) {
		if l.Msg == msg {
			out = append(out, l)
		}
	}
	return out
}

// faultStatePath is where the simulator's configuration keeps the state file.
func (e *env) faultStatePath() string { return filepath.Join(e.dir, "state.db") }

// faultClosedPort returns a loopback port nobody listens on.
func faultClosedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// faultOpenVMFinding deletes the map row of the cluster's first worker and waits until the finding is
// announced (annotation and alert); it returns what restores the row.
func (e *env) faultOpenVMFinding(c simulator.Cluster) (restore func()) {
	e.t.Helper()
	restore, err := e.sim.DeleteMapRow(c.ID, c.VMs[1])
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the VM-side finding announced", func() bool {
		return len(e.findings()) == 1 && len(e.storedAlerts()) == 1 && count(e.faultAnnotations(), "[WARN]") == 1
	})
	e.nextCycles(1)
	return restore
}

// faultOpenNodeFinding stops kubelet on the cluster's first worker and waits until the node-side
// finding is announced; it returns what starts kubelet again.
func (e *env) faultOpenNodeFinding(c simulator.Cluster) (restart func()) {
	e.t.Helper()
	restart, err := e.sim.StopKubelet(c.ID, c.VMs[1])
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the node-side finding announced", func() bool {
		f := e.findings()
		return len(f) == 1 && strings.Contains(f[0], "vm_not_a_node") && len(e.storedAlerts()) == 1 &&
			count(e.faultAnnotations(), "[WARN]") == 1
	})
	e.nextCycles(1)
	return restart
}

// faultOneEpisode checks what CloudStack holds after one finding opened and cleared: one [WARN]
// annotation, one [INFO] annotation for its side, one alert, archived.
func (e *env) faultOneEpisode(resolution string) {
	e.t.Helper()
	ann := e.faultAnnotations()
	if count(ann, "[WARN]") != 1 || count(ann, "[INFO]", resolution) != 1 || len(ann) != 2 {
		e.t.Fatalf("annotations: %q, want one [WARN] and one [INFO] ... %s", ann, resolution)
	}
	if rows := e.faultAlertRows(); len(rows) != 1 {
		e.t.Fatalf("alerts stored: %q, want one", rows)
	}
	if a := e.storedAlerts(); len(a) != 0 {
		e.t.Fatalf("the cleared finding's alert is not archived: %q", a)
	}
}

// TestFaultsInventory: faults that keep the inventory from being read. The cycle fails with
// cks_drift_up 0 and an ERROR line naming the cause; /metrics keeps the last findings, the drift
// undone meanwhile is not taken for resolved and nothing is announced until CloudStack answers
// again; then the resolution is announced exactly once.
func TestFaultsInventory(t *testing.T) {
	const interval = "  interval: 100ms\n"
	for _, tc := range []struct {
		name   string
		before func(e *env) // configuration written before the exporter starts
		inject func(e *env)
		clear  func(e *env)
		errIn  string // in the ERROR line's err
	}{
		{
			name: "API connection refused",
			inject: func(e *env) {
				e.faultEditConfig("endpoint: "+e.sim.CloudStack.Endpoint(), fmt.Sprintf("endpoint: http://127.0.0.1:%d/client/api", faultClosedPort(e.t)))
				e.faultReload()
			},
			clear: func(e *env) { e.writeConfig(interval, ""); e.faultReload() },
			errIn: "connection refused",
		},
		{
			name:   "429 without Retry-After",
			inject: func(e *env) { e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Status: 429}) },
			clear:  func(e *env) { e.sim.CloudStack.ClearFaults() },
			errIn:  "429",
		},
		{
			name:   "answer slower than cloudstack.timeout",
			before: func(e *env) { e.faultEditConfig("cloudstack:\n", "cloudstack:\n  timeout: 500ms\n") },
			inject: func(e *env) {
				e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Delay: time.Minute})
			},
			clear: func(e *env) { e.sim.CloudStack.ClearFaults() },
			errIn: "Client.Timeout exceeded",
		},
		{
			name: "401 after a key rotation",
			inject: func(e *env) {
				secret := e.sim.CloudStack.SecretKey()
				e.faultEditConfig("secret_key: "+secret, "secret_key: rotated-"+secret)
				e.faultReload()
			},
			clear: func(e *env) { e.writeConfig(interval, ""); e.faultReload() },
			errIn: "401",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig(interval, "")
			if tc.before != nil {
				tc.before(e)
			}
			e.start()
			restore := e.faultOpenVMFinding(cs[0])
			written, mark := len(e.writes()), e.logs.mark()
			failures := e.metrics()["cks_drift_cycle_failures_total"]

			tc.inject(e)
			restore() // undone while CloudStack cannot be read: must not count as resolved
			e.waitFor("failing cycles", func() bool {
				m := e.metrics()
				return m["cks_drift_up"] == 0 && m["cks_drift_cycle_failures_total"] >= failures+2
			})
			if f := e.findings(); len(f) != 1 || !strings.Contains(f[0], "test unmapped_vm "+cs[0].VMs[1]) {
				t.Fatalf("/metrics does not keep the last findings: %v", f)
			}
			if w := e.writes()[written:]; len(w) != 0 {
				t.Fatalf("announced while CloudStack could not be read: %q", w)
			}
			lines := e.faultLogged(mark, slog.LevelError, faultMsgInventory)
			if len(lines) == 0 || !strings.Contains(lines[0].Attrs["err"], tc.errIn) {
				t.Fatalf("no ERROR line naming %q: %+v", tc.errIn, lines)
			}
			if strings.Contains(lines[0].Attrs["err"], e.sim.CloudStack.SecretKey()) || strings.Contains(lines[0].Attrs["err"], "signature=") {
				t.Fatalf("the log line carries a secret: %q", lines[0].Attrs["err"])
			}
			t.Logf("ERROR %s err=%q", lines[0].Msg, lines[0].Attrs["err"])

			tc.clear(e)
			e.waitFor("the resolution", func() bool { return e.metrics()["cks_drift_up"] == 1 && len(e.findings()) == 0 })
			e.nextCycles(2)
			e.faultOneEpisode(faultVMSideAgain)
		})
	}
}

// TestFaultsSSH: faults of the control node's SSH that the other tests do not cover. The
// cluster's kubectl is unreachable with the reason counted and faultLogged once; the node-side
// finding is carried over (the node came back meanwhile, which must not count as resolved until
// kubectl can be read again), no node-side finding is invented; then one resolution.
func TestFaultsSSH(t *testing.T) {
	const interval = "  interval: 100ms\n"
	for _, tc := range []struct {
		name   string
		before func(e *env)
		inject func(e *env, node *sshtest.Server)
		clear  func(e *env, node *sshtest.Server)
		reason string
	}{
		{
			name: "connection refused (nothing listens on the port)",
			inject: func(e *env, _ *sshtest.Server) {
				e.faultEditConfig("ssh:\n", fmt.Sprintf("ssh:\n  port: %d\n", faultClosedPort(e.t)))
				e.faultReload()
			},
			clear:  func(e *env, _ *sshtest.Server) { e.writeConfig(interval, ""); e.faultReload() },
			reason: "dial",
		},
		{
			name: "authentication failure (the exporter's key is not authorized)",
			inject: func(e *env, _ *sshtest.Server) {
				_, pem, err := sshtest.NewKey()
				if err != nil {
					e.t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(e.dir, "id_ed25519"), pem, 0o600); err != nil {
					e.t.Fatal(err)
				}
				e.faultReload()
			},
			clear:  func(e *env, _ *sshtest.Server) { e.writeConfig(interval, ""); e.faultReload() },
			reason: "auth",
		},
		{
			name:   "hanging handshake",
			before: func(e *env) { e.faultEditConfig("  timeout: 5s\n", "  timeout: 300ms\n") },
			inject: func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.HangHandshake) },
			clear:  func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.Normal) },
			reason: "timeout",
		},
		{
			name:   "hanging kubectl command",
			before: func(e *env) { e.faultEditConfig("  timeout: 5s\n", "  timeout: 300ms\n") },
			inject: func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.HangCommand) },
			clear:  func(_ *env, node *sshtest.Server) { node.SetMode(sshtest.Normal) },
			reason: "timeout",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			node := e.sim.Node(cs[0].ID)
			e.writeConfig(interval, "")
			if tc.before != nil {
				tc.before(e)
			}
			e.start()
			restart := e.faultOpenNodeFinding(cs[0])
			written, mark := len(e.writes()), e.logs.mark()
			metric := `cks_drift_kubectl_failures_total{reason="` + tc.reason + `"}`
			before := e.metrics()[metric]

			tc.inject(e, node)
			restart() // the node is back, but kubectl cannot say so
			e.waitFor(tc.reason+" failures", func() bool { return e.metrics()[metric] >= before+2 })
			m := e.metrics()
			if r := matching(m, `^cks_drift_kubectl_reachable\{`); r[keyOf(r)] != 0 || m["cks_drift_up"] != 1 {
				t.Fatalf("kubectl_reachable %v, up %v", r, m["cks_drift_up"])
			}
			if f := e.findings(); len(f) != 1 || !strings.Contains(f[0], "vm_not_a_node") {
				t.Fatalf("the node-side finding is not carried over, or one was invented: %v", f)
			}
			if w := e.writes()[written:]; len(w) != 0 {
				t.Fatalf("announced while kubectl was unreachable: %q", w)
			}
			warns := e.faultLogged(mark, slog.LevelWarn, faultMsgKubectl)
			if len(warns) != 1 || warns[0].Attrs["reason"] != tc.reason {
				t.Fatalf("want one WARN line with reason %s, got %+v", tc.reason, warns)
			}

			mark = e.logs.mark()
			tc.clear(e, node)
			e.waitFor("the resolution", func() bool { return len(e.findings()) == 0 })
			e.nextCycles(2)
			e.faultOneEpisode(faultNodeSideAgain)
			if l := e.faultLogged(mark, slog.LevelInfo, "The Kubernetes nodes of the cluster can be listed again"); len(l) != 1 {
				t.Fatalf("recovery logged %d times, want once", len(l))
			}
		})
	}
}

// TestFaultAddAnnotationFails: CloudStack failing addAnnotation (530) leaves the annotation soakOwed;
// the alert, a part of its own, goes through once; after recovery exactly one annotation is
// stored and the alert is not sent again.
func TestFaultAddAnnotationFails(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= 3 })
	if f := e.findings(); len(f) != 1 {
		t.Fatalf("findings: %v", f)
	}
	if a := e.faultAnnotations(); len(a) != 0 {
		t.Fatalf("annotations stored while addAnnotation fails: %q", a)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 || len(e.storedAlerts()) != 1 {
		t.Fatalf("generateAlert called %d times, stored %q; want once", n, e.storedAlerts())
	}
	fails := e.faultLogged(0, slog.LevelWarn, faultMsgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "addAnnotation" || !strings.Contains(fails[0].Attrs["err"], "530") {
		t.Fatalf("want one WARN line for addAnnotation, got %+v", fails)
	}

	mark := e.logs.mark()
	e.sim.CloudStack.ClearFaults()
	e.waitFor("the annotation", func() bool { return len(e.faultAnnotations()) == 1 })
	e.nextCycles(3)
	if a := e.faultAnnotations(); count(a, "[WARN] VM "+cs[0].VMs[1]) != 1 || len(a) != 1 {
		t.Fatalf("annotations after recovery: %q", a)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 || len(e.faultAlertRows()) != 1 {
		t.Fatalf("the alert was sent again: %d generateAlert calls, rows %q", n, e.faultAlertRows())
	}
	if l := e.faultLogged(mark, slog.LevelInfo, "Notifier call works again"); len(l) != 1 || l[0].Attrs["op"] != "addAnnotation" {
		t.Fatalf("recovery lines: %+v", l)
	}
}

// TestFaultAlertStoredNothing: generateAlert answers success but CloudStack stores nothing,
// because an un-archived alert of the same type and zone exists (here one of every type the
// notifier may use, left by an earlier installation). The notifier notices with listAlerts,
// archives its type and sends once more: exactly one stored alert for the finding, the other
// alerts untouched.
func TestFaultAlertStoredNothing(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "  alert_type_min: 20000\n  alert_type_max: 20010\n")
	var zone string
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		for _, c := range w.Clusters {
			zone = c.ZoneID
		}
		for typ := 20000; typ < 20010; typ++ { // 20010 is the summary's
			w.Alerts = append(w.Alerts, &cloudstacktest.Alert{ID: fmt.Sprintf("old-%d", typ), Type: typ,
				Name: notifier.AlertName, Description: fmt.Sprintf("left over %d", typ), ZoneID: zone, Sent: time.Now().Add(-time.Hour)})
		}
	})
	e.start()
	e.nextCycles(1)
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the alert", func() bool { return count(e.storedAlerts(), "VM "+cs[0].VMs[1]) == 1 })
	e.nextCycles(3)
	stored := e.storedAlerts()
	if count(stored, "VM "+cs[0].VMs[1]) != 1 || count(stored, "left over") != 9 || len(stored) != 10 {
		t.Fatalf("stored alerts: %q; want the finding's once and 9 left-overs", stored)
	}
	if g, a := e.sim.CloudStack.CallCount("generateAlert"), e.sim.CloudStack.CallCount("archiveAlerts"); g != 2 || a != 1 {
		t.Fatalf("generateAlert %d, archiveAlerts %d; want 2 and 1", g, a)
	}
	m := e.metrics()
	if m[`cks_drift_notifications_total{kind="unmapped_vm"}`] != 1 || m["cks_drift_notification_failures_total"] != 0 {
		t.Fatalf("notification metrics: %v", matching(m, "notification"))
	}
	if n := count(e.faultAnnotations(), "[WARN]"); n != 1 {
		t.Fatalf("annotations: %d", n)
	}
}

// faultRequireRoot skips a test that changes file attributes or mounts file systems.
func faultRequireRoot(t *testing.T, tool string) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skipf("needs root on Linux (%s)", tool)
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("needs %s: %v", tool, err)
	}
}

// faultChattr sets or clears the immutable attribute: even root cannot write to the file, through
// descriptors opened before too, which is what a file the exporter can no longer write looks like.
func faultChattr(t *testing.T, flag, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		t.Skipf("chattr %s is not supported here: %v %s", flag, err, out)
	}
}

// TestFaultStateFileUnwritable: the state file becomes unwritable while the exporter runs
// (chattr +i). Announcing now could not be recorded as attempted, so it would be repeated after a
// restart: the notifier holds every call, says so once and counts the failure; /metrics and the
// findings go on. Writable again, everything is announced once; unwritable at a stop and
// writable at the next start, nothing is announced twice. At start-up an unwritable file stops
// the exporter with an error that does not tell to move the file away.
func TestFaultStateFileUnwritable(t *testing.T) {
	faultRequireRoot(t, "chattr")
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(2)
	path := e.faultStatePath()
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })

	// Unwritable while a finding opens: nothing is sent.
	faultChattr(t, "+i", path)
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
	fails := e.faultLogged(0, slog.LevelWarn, faultMsgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "save state" || !strings.Contains(fails[0].Attrs["err"], "operation not permitted") {
		t.Fatalf("want one WARN line for the state file, got %+v", fails)
	}

	// Writable again: announced once.
	mark := e.logs.mark()
	faultChattr(t, "-i", path)
	e.waitFor("the announcement", func() bool { return len(e.storedAlerts()) == 1 && len(e.faultAnnotations()) == 1 })
	e.nextCycles(2)
	if l := e.faultLogged(mark, slog.LevelInfo, "Notifier call works again"); len(l) != 1 || l[0].Attrs["op"] != "save state" {
		t.Fatalf("recovery lines: %+v", l)
	}

	// Unwritable while the finding clears, and still at the stop: the resolution is held, and
	// sent once by the next process.
	faultChattr(t, "+i", path)
	failures := e.metrics()["cks_drift_notification_failures_total"]
	restore()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.waitFor("save failures", func() bool { return e.metrics()["cks_drift_notification_failures_total"] >= failures+2 })
	if n := count(e.faultAnnotations(), "[INFO]"); n != 0 {
		t.Fatalf("resolution announced although the attempt could not be recorded")
	}
	e.stop()

	// At start-up: a clear error, not "move the file away".
	_, err = New(Options{ConfigFile: e.cfg})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cannot be opened for writing") ||
		strings.Contains(err.Error(), "move the file away") {
		t.Fatalf("New with an unwritable state file: %v", err)
	}

	faultChattr(t, "-i", path)
	e.start()
	e.waitFor("the resolution", func() bool { return count(e.faultAnnotations(), "[INFO]") == 1 })
	e.nextCycles(3)
	e.faultOneEpisode(faultVMSideAgain)
}

// TestFaultStateDiskFull: the state file's file system is full (a 1 MiB tmpfs filled up) when a
// batch of findings makes the notifier's document outgrow the pages the file already has. The
// write fails with ENOSPC: nothing is announced, one WARN line names the error and the failures
// are counted; with room again each finding is announced once, and a restart sends nothing more.
func TestFaultStateDiskFull(t *testing.T) {
	faultRequireRoot(t, "mount")
	const strays = 40
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", fmt.Sprintf("  max_alerts_per_cycle: %d\n", strays))
	disk := filepath.Join(e.dir, "disk")
	if err := os.Mkdir(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if exec.Command("umount", disk).Run() != nil {
			_ = exec.Command("umount", "-l", disk).Run()
		}
	})
	e.faultEditConfig("path: "+e.faultStatePath(), "path: "+filepath.Join(disk, "state.db"))
	e.start()
	e.nextCycles(2)

	filler := filepath.Join(disk, "filler")
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
	fails := e.faultLogged(0, slog.LevelWarn, faultMsgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "save state" || !strings.Contains(fails[0].Attrs["err"], "no space left on device") {
		t.Fatalf("want one WARN line for the full disk, got %+v", fails)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("announced although the attempts could not be recorded: %d calls", len(w))
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the announcements", func() bool { return len(e.storedAlerts()) == strays })
	e.nextCycles(2)
	e.stop()
	e.start()
	e.nextCycles(3)
	ann, rows := e.faultAnnotations(), e.faultAlertRows()
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
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, path string)
		errIn   string
	}{
		{name: "meta pages overwritten", errIn: "cannot be read", corrupt: func(t *testing.T, path string) {
			b := faultReadFile(t, path)
			copy(b, bytes.Repeat([]byte("garbage!"), 2*4096/8))
			faultWriteFile(t, path, b)
		}},
		{name: "a page of the notifier's bucket damaged", errIn: "cannot be read", corrupt: func(t *testing.T, path string) {
			b := faultReadFile(t, path)
			i := bytes.LastIndex(b, []byte(`{"clusters"`))
			if i < 64 {
				t.Fatal("the notifier's document is not in the file")
			}
			for j := i - 40; j < i; j++ { // the inline bucket's page and element headers
				b[j] ^= 0xff
			}
			faultWriteFile(t, path, b)
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
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
			e.writeConfig("  interval: 100ms\n", "")
			e.start()
			e.faultOpenVMFinding(cs[0])
			e.stop()
			path := e.faultStatePath()
			tc.corrupt(t, path)
			damaged := faultReadFile(t, path)

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
			if !bytes.Equal(faultReadFile(t, path), damaged) {
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

func faultReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func faultWriteFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// faultOutput collects a subprocess's output.
type faultOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *faultOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *faultOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// faultBuildBinary builds the real binary, as make build does, into the test's folder.
func faultBuildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cks-drift-exporter")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/cks-drift-exporter/cks-drift-exporter/cmd/cks-drift-exporter")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// faultProcess is the binary running as a child process.
type faultProcess struct {
	cmd  *exec.Cmd
	out  *faultOutput
	done chan struct{}
}

func faultStartProcess(t *testing.T, bin, cfg string) *faultProcess {
	t.Helper()
	p := &faultProcess{out: &faultOutput{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, "--config.file="+cfg, "--web.listen-address=127.0.0.1:0", "--log.level=debug")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill() // only our own child, by its pid
			<-p.done
		}
	})
	return p
}

// terminate sends SIGTERM and waits, bounded, for the process to exit; it returns the exit code.
func (p *faultProcess) terminate(t *testing.T) int {
	t.Helper()
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after SIGTERM; output:\n%s", p.out.String())
	}
	t.Logf("exited %v after SIGTERM with code %d", time.Since(sent).Round(time.Millisecond), p.cmd.ProcessState.ExitCode())
	if strings.Contains(p.out.String(), "panic:") {
		t.Fatalf("the exporter panicked:\n%s", p.out.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// faultCheckStateFile reopens the state file the way the exporter does, runs bbolt's consistency
// check over every page and returns the notifier's document.
func faultCheckStateFile(t *testing.T, path string) notifier.State {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	_ = db.Close()
	if err != nil {
		t.Fatalf("the state file is inconsistent: %v", err)
	}
	st, err := state.Open(path, false)
	if err != nil {
		t.Fatalf("state.Open: %v", err)
	}
	defer st.Close()
	raw, err := st.LoadNotifierState()
	if err != nil {
		t.Fatal(err)
	}
	var s notifier.State
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("the notifier's document: %v\n%s", err, raw)
	}
	return s
}

// faultOnlyAnnouncement returns the one announcement of the state, failing the test otherwise.
func faultOnlyAnnouncement(t *testing.T, s notifier.State) *notifier.Announcement {
	t.Helper()
	var out []*notifier.Announcement
	for _, c := range s.Clusters {
		for _, side := range c.Sides {
			for _, a := range side.Findings {
				out = append(out, a)
			}
		}
	}
	if len(out) != 1 {
		t.Fatalf("the state holds %d announcements, want 1: %+v", len(out), s)
	}
	return out[0]
}

// TestFaultSIGTERMDuringCycle runs the real binary and sends SIGTERM while listVirtualMachines
// hangs: it exits at once with code 0, the state file is consistent, and the next run goes on
// where the first left off (the open finding is neither lost nor announced again).
func TestFaultSIGTERMDuringCycle(t *testing.T) {
	bin := faultBuildBinary(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.faultOpenVMFinding(cs[0])
	firstSeen := e.firstSeen(t)
	e.stop()
	written := len(e.writes())

	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: time.Hour})
	calls := e.sim.CloudStack.CallCount("listVirtualMachines")
	p := faultStartProcess(t, bin, e.cfg)
	e.waitFor("listVirtualMachines to hang", func() bool { return e.sim.CloudStack.CallCount("listVirtualMachines") > calls })
	if code := p.terminate(t); code != 0 {
		t.Fatalf("exit code %d, want 0; output:\n%s", code, p.out.String())
	}
	if strings.Contains(p.out.String(), "level=ERROR") || !strings.Contains(p.out.String(), "Check cycle stopped by shutdown") {
		t.Fatalf("the shutdown is not logged as such:\n%s", p.out.String())
	}
	if a := faultOnlyAnnouncement(t, faultCheckStateFile(t, e.faultStatePath())); !a.Announced() {
		t.Fatalf("the announcement in the state file: %+v", a)
	}

	e.sim.CloudStack.ClearFaults()
	e.start()
	e.nextCycles(2)
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("announced again after the SIGTERM: %q", w)
	}
	if got := e.firstSeen(t); got != firstSeen {
		t.Fatalf("first_seen %s, was %s", got, firstSeen)
	}
}

// TestFaultSIGTERMDuringNotification runs the real binary and sends SIGTERM while generateAlert's
// async job is pending (cloudstack-go sleeps between polls). The alert was already stored by
// CloudStack; the state file says it was attempted, so the next run looks it up instead of
// sending it again: one annotation and one alert in the end.
func TestFaultSIGTERMDuringNotification(t *testing.T) {
	bin := faultBuildBinary(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.sim.CloudStack.SetJobPolls(30)
	p := faultStartProcess(t, bin, e.cfg)
	e.waitFor("generateAlert's job to be polled", func() bool { return e.sim.CloudStack.CallCount("queryAsyncJobResult") >= 1 })
	if code := p.terminate(t); code != 0 {
		t.Fatalf("exit code %d, want 0; output:\n%s", code, p.out.String())
	}
	a := faultOnlyAnnouncement(t, faultCheckStateFile(t, e.faultStatePath()))
	if !a.Annotation.Done || a.Alert.Done || a.Alert.Attempted.IsZero() {
		t.Fatalf("want the annotation done and the alert attempted, not done: %+v", a)
	}

	e.sim.CloudStack.SetJobPolls(0)
	e.start()
	e.waitFor("the first cycle of the new process", func() bool { return e.cycles() >= 1 })
	ann, rows := e.faultAnnotations(), e.faultAlertRows()
	if count(ann, "[WARN] VM "+cs[0].VMs[1]) != 1 || len(ann) != 1 || count(rows, "VM "+cs[0].VMs[1]) != 1 || len(rows) != 1 {
		t.Fatalf("annotations %q, alerts %q; want one each", ann, rows)
	}
	if n := e.sim.CloudStack.CallCount("generateAlert"); n != 1 {
		t.Fatalf("generateAlert called %d times, want 1 (the attempted alert is looked up, not resent)", n)
	}
	if n := e.sim.CloudStack.CallCount("listAlerts"); n == 0 {
		t.Fatal("the attempted alert was not looked up")
	}
	e.stop()
	if a := faultOnlyAnnouncement(t, faultCheckStateFile(t, e.faultStatePath())); !a.Announced() {
		t.Fatalf("after the restart the announcement is not complete: %+v", a)
	}
}

// TestFaultLookupFailsAfterUnknownOutcome: an annotation reached CloudStack but the exporter never
// recorded it (the state file became unwritable during the call, and the process stopped), so the
// next process finds it attempted with an unknown outcome. Its look-up (listAnnotations) fails:
// the annotation must stay soakOwed, not be sent blindly a second time; once the look-up works it is
// found and counted as done.
func TestFaultLookupFailsAfterUnknownOutcome(t *testing.T) {
	faultRequireRoot(t, "chattr")
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	path := e.faultStatePath()
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })

	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Delay: time.Second})
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("addAnnotation under way", func() bool { return e.sim.CloudStack.CallCount("addAnnotation") == 1 })
	faultChattr(t, "+i", path) // the attempt is on disk; its outcome will not be
	e.waitFor("the annotation and the alert stored, the outcome not saved", func() bool {
		return len(e.faultAnnotations()) == 1 && len(e.storedAlerts()) == 1 && e.metrics()["cks_drift_notification_failures_total"] >= 1
	})
	e.stop()
	faultChattr(t, "-i", path)
	if a := faultOnlyAnnouncement(t, faultCheckStateFile(t, path)); a.Annotation.Done || a.Annotation.Attempted.IsZero() {
		t.Fatalf("want the annotation attempted with an unknown outcome in the state file: %+v", a)
	}

	e.sim.CloudStack.ClearFaults()
	e.sim.CloudStack.SetFault("listAnnotations", cloudstacktest.Fault{Status: 530})
	mark := e.logs.mark()
	e.start()
	e.nextCycles(3)
	if n := count(e.faultAnnotations(), "[WARN]"); n != 1 {
		t.Fatalf("%d [WARN] annotations: sent again without knowing whether the first got through", n)
	}
	fails := e.faultLogged(mark, slog.LevelWarn, faultMsgNotifier)
	if len(fails) != 1 || fails[0].Attrs["op"] != "look up an earlier attempt" {
		t.Fatalf("want one WARN line for the look-up, got %+v", fails)
	}

	e.sim.CloudStack.ClearFaults()
	e.nextCycles(3)
	e.stop()
	if n := count(e.faultAnnotations(), "[WARN]"); n != 1 {
		t.Fatalf("%d [WARN] annotations", n)
	}
	if a := faultOnlyAnnouncement(t, faultCheckStateFile(t, path)); !a.Announced() {
		t.Fatalf("the annotation was not found by the look-up: %+v", a)
	}
}

// TestFaultAlertOutcomeUnknownThenCleared: generateAlert stored the alert but its job could not
// be queried (queryAsyncJobResult 530), and the look-ups fail too (listAlerts 530), so the alert
// is attempted with an unknown outcome when its finding clears. The alert may exist, so its type
// must be archived like any sent alert: no alert of a cleared finding stays open in CloudStack.
func TestFaultAlertOutcomeUnknownThenCleared(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	e.sim.CloudStack.SetFault("queryAsyncJobResult", cloudstacktest.Fault{Status: 530})
	e.sim.CloudStack.SetFault("listAlerts", cloudstacktest.Fault{Status: 530})
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("the alert stored with its outcome unknown", func() bool {
		return len(e.storedAlerts()) == 1 && e.metrics()["cks_drift_notification_failures_total"] >= 3
	})
	restore()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.sim.CloudStack.ClearFaults()
	e.nextCycles(3)
	if a := e.storedAlerts(); len(a) != 0 {
		t.Fatalf("the alert of the cleared finding is still open: %q", a)
	}
	e.faultOneEpisode(faultVMSideAgain)
}
