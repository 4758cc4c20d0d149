package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

func summaryLines(b *logRecorder) []logLine {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []logLine
	for _, l := range b.lines {
		if l.Msg == cycleSummaryMsg {
			out = append(out, l)
		}
	}
	return out
}

// TestCycleSummaryLine: one INFO line after the first cycle, so that a healthy exporter says it
// works; another when the counts change; none while they stay the same or when a cycle fails.
func TestCycleSummaryLine(t *testing.T) {
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	cluster := func(name string, findings int) collector.ClusterStatus {
		s := collector.ClusterStatus{Cluster: collector.Cluster{ID: name, Name: name, State: "Running"}, Checked: true, Nodes: collector.NodesRead(nil, nil)}
		for i := range findings {
			s.Add(collector.Finding{Kind: collector.KindUnmappedVM, VMID: fmt.Sprint(i)})
		}
		return s
	}
	snap := func(success bool, clusters ...collector.ClusterStatus) *collector.Snapshot {
		s := &collector.Snapshot{Start: start, End: start.Add(time.Second), Success: success, Clusters: clusters}
		if success {
			s.LastSuccess = s.End
		}
		return s
	}
	steps := []struct {
		name string
		next *collector.Snapshot
		want string // the counts logged, "" for no line
	}{
		{"first cycle", snap(true, cluster("a", 0), cluster("b", 0)), "clusters=2 findings=0"},
		{"same counts", snap(true, cluster("a", 0), cluster("b", 0)), ""},
		{"a finding", snap(true, cluster("a", 1), cluster("b", 0)), "clusters=2 findings=1 unmapped_vm=1"},
		{"failed cycle", snap(false, cluster("a", 1), cluster("b", 0)), ""},
		{"still one finding", snap(true, cluster("a", 1), cluster("b", 0)), ""},
		{"cleared", snap(true, cluster("a", 0), cluster("b", 0)), "clusters=2 findings=0"},
	}
	logs := &logRecorder{}
	prev := &collector.Snapshot{}
	for _, st := range steps {
		mark := len(summaryLines(logs))
		logCycleSummary(prev, st.next, slog.New(logs))
		got := summaryLines(logs)[mark:]
		switch {
		case st.want == "" && len(got) != 0:
			t.Errorf("%s: logged %+v, want nothing", st.name, got)
		case st.want != "":
			if len(got) != 1 {
				t.Fatalf("%s: %d lines, want 1", st.name, len(got))
			}
			l := got[0]
			have := fmt.Sprintf("clusters=%s findings=%s", l.Attrs["clusters"], l.Attrs["findings"])
			if n, ok := l.Attrs["unmapped_vm"]; ok {
				have += " unmapped_vm=" + n
			}
			if have != st.want || l.Level != slog.LevelInfo {
				t.Errorf("%s: logged %s at %v, want %s at INFO", st.name, have, l.Level, st.want)
			}
		}
		if st.next.Success {
			prev = st.next
		} else {
			st.next.LastSuccess = prev.LastSuccess
			prev = st.next
		}
	}
}

// TestStartupSettings: the startup line says where the exporter reads, how often, how it lists
// nodes and how it notifies, and never a secret.
func TestStartupSettings(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "a"})
	e.writeConfig("  interval: 7m\n", "  mode: direct\n")
	exp, err := New(Options{ConfigFile: e.cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	line := fmt.Sprintln(exp.Settings()...)
	for _, want := range []string{e.sim.CloudStack.Endpoint(), "interval 7m0s", "node_source ssh", "notifier_mode direct", "state_file"} {
		if !strings.Contains(line, want) {
			t.Errorf("settings lack %q: %s", want, line)
		}
	}
	for _, secret := range []string{e.sim.CloudStack.APIKey(), e.sim.CloudStack.SecretKey()} {
		if strings.Contains(line, secret) {
			t.Errorf("settings show a secret: %s", line)
		}
	}
}

// TestBusyPortLogsOnlyTheRealError: a second exporter on a port already in use stops with
// "address already in use", without an INFO line about its check cycle being stopped first: it
// listens before the loop starts.
func TestBusyPortLogsOnlyTheRealError(t *testing.T) {
	first, _ := newEnv(t, simulator.ClusterSpec{Name: "a"})
	first.writeConfig("  interval: 1h\n", "  enabled: false\n")
	first.start()
	busy := strings.TrimPrefix(first.url, "http://")

	second, _ := newEnv(t, simulator.ClusterSpec{Name: "b"})
	second.writeConfig("  interval: 1h\n", "  enabled: false\n")
	logs := &logRecorder{}
	exp, err := New(Options{ConfigFile: second.cfg, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	webCfg := &web.FlagConfig{WebListenAddresses: &[]string{busy}, WebSystemdSocket: new(bool), WebConfigFile: new(string)}
	err = exp.Run(context.Background(), ServeOptions{TelemetryPath: "/metrics", Web: webCfg})
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Run on a busy port: %v", err)
	}
	for _, l := range logs.since(0, slog.LevelInfo) {
		if strings.Contains(strings.ToLower(l.Msg), "shutdown") {
			t.Errorf("logged %q before the real error", l.Msg)
		}
	}
}

// TestCapHeldBackIsLogged: findings the alert cap holds back leave an INFO line with how many.
func TestCapHeldBackIsLogged(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "a"}, simulator.ClusterSpec{Name: "b"}, simulator.ClusterSpec{Name: "c"})
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[2]); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfig("  interval: 1h\n", "  max_alerts_per_cycle: 1\n")
	e.start()
	e.waitFor("three findings", func() bool { return len(e.findings()) == 3 })
	var lines []logLine
	e.waitFor("the cap's line", func() bool {
		lines = nil
		for _, l := range e.logs.since(0, slog.LevelInfo) {
			if strings.HasPrefix(l.Msg, "The alert cap held new findings back") {
				lines = append(lines, l)
			}
		}
		return len(lines) > 0
	})
	if len(lines) != 1 || lines[0].Attrs["held_back"] != "2" || lines[0].Attrs["max_alerts_per_cycle"] != "1" {
		t.Fatalf("cap lines: %+v", lines)
	}
}
