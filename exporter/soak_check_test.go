package exporter

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// drainLogs tallies the exporter's log lines and empties the buffer, so that the log does not
// grow with the soak.
func (r *soakRun) drainLogs() {
	b := r.e.logs
	b.mu.Lock()
	lines := b.lines
	b.lines = nil
	b.mu.Unlock()
	for _, l := range lines {
		switch {
		case l.Level == slog.LevelWarn && l.Attrs["kind"] != "":
			r.reported[l.Attrs["vm_name"]]++
			r.logCounts["WARN new finding"]++
			if r.byName[l.Attrs["vm_name"]] == nil {
				r.invented = append(r.invented, l.Msg)
			}
		case l.Level == slog.LevelInfo && l.Attrs["side"] != "":
			r.resolved[l.Attrs["cluster"]+"/"+l.Attrs["side"]]++
			r.logCounts["INFO side resolved"]++
		case l.Level >= slog.LevelInfo && (l.Msg == msgInventory || l.Msg == msgKubectl || l.Msg == msgNotifier ||
			l.Msg == "Notifier call works again" || l.Msg == "The Kubernetes nodes of the cluster can be listed again"):
			r.logCounts[l.Level.String()+" "+l.Msg]++
		case l.Level >= slog.LevelWarn:
			if len(r.unexpectedErr) < 20 {
				r.unexpectedErr = append(r.unexpectedErr, fmt.Sprintf("%s %s %v", l.Level, l.Msg, l.Attrs))
			}
		}
	}
}

var soakFindingName = regexp.MustCompile(`vm_name="([^"]*)"`)

// scrape checks that /metrics answers and shows no finding the soak did not cause.
func (r *soakRun) scrape() {
	resp, err := http.Get(r.e.url + "/metrics")
	if err != nil {
		r.t.Fatalf("/metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	up := false
	for sc.Scan() {
		line := sc.Text()
		up = up || strings.HasPrefix(line, "cks_drift_up ")
		if strings.HasPrefix(line, "cks_drift_finding{") {
			if m := soakFindingName.FindStringSubmatch(line); m == nil || r.byName[m[1]] == nil {
				r.invented = append(r.invented, line)
			}
		}
	}
	if !up {
		r.t.Fatal("/metrics has no cks_drift_up")
	}
}

// sample records the live heap after a collection and the resident set, every 100 cycles. The
// fake's call log, which is the test's memory and not the exporter's, is emptied first.
func (r *soakRun) sample(cycle uint64) {
	r.e.sim.CloudStack.ResetCalls()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.heap = append(r.heap, ms.HeapInuse)
	r.rss = append(r.rss, soakRSS())
	r.atCycle = append(r.atCycle, cycle)
}

// soakRSS reads the resident set size of the test process from /proc (0 where there is none).
func soakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// notifierState reads the notifier's document from the running exporter's state file.
func (r *soakRun) notifierState() savedNotifier {
	raw, err := r.e.exp.store.LoadNotifierState()
	if err != nil {
		r.t.Fatal(err)
	}
	var s savedNotifier
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			r.t.Fatal(err)
		}
	}
	return s
}

// owed lists what the notifier still owes CloudStack.
func owed(s savedNotifier) []string {
	var out []string
	for id, c := range s.Clusters {
		for side, ss := range c.Sides {
			if ss.Resolution != nil {
				out = append(out, fmt.Sprintf("%s/%s resolution", c.Name, side))
			}
			for key, a := range ss.Findings {
				if !a.announced() {
					out = append(out, fmt.Sprintf("%s %s %s annotation %v alert %v", c.Name, id, key, a.Annotation.Done, a.Alert.Done))
				}
			}
		}
	}
	if len(s.Archive) > 0 {
		out = append(out, fmt.Sprintf("archive %v", s.Archive))
	}
	if s.Summary != nil {
		out = append(out, "summary alert")
	}
	return out
}

// finish clears every fault, waits until every drift still present is announced completely,
// undoes all drift and runs clean cycles until nothing is found and nothing is owed.
func (r *soakRun) finish() {
	r.e.sim.CloudStack.ClearFaults()
	for i := range r.cs {
		r.e.sim.Node(r.cs[i].ID).SetMode(sshtest.Normal)
	}
	r.api, r.notify, r.ssh = nil, nil, map[int]*soakFault{}

	var present []string
	for _, d := range r.drifts {
		if !d.undone {
			present = append(present, d.name)
		}
	}
	sort.Strings(present)
	r.waitFor("every drift still present to be found and announced", func() bool {
		var names []string
		for _, f := range r.e.findings() {
			names = append(names, f[strings.LastIndexByte(f, ' ')+1:])
		}
		sort.Strings(names)
		return slices.Equal(names, present) && len(owed(r.notifierState())) == 0
	})
	r.drainLogs()
	s := r.notifierState()
	for _, d := range r.drifts {
		if d.undone {
			continue
		}
		d.presentAtEnd = true
		for _, c := range s.Clusters {
			for _, ss := range c.Sides {
				for _, a := range ss.Findings {
					if strings.Contains(a.Message, d.needle) {
						d.cappedAtEnd = a.Capped
					}
				}
			}
		}
		d.undo()
		d.undone = true
	}
	r.waitFor("no finding and nothing owed", func() bool {
		s := r.notifierState()
		return len(r.e.findings()) == 0 && len(s.Clusters) == 0 && len(owed(s)) == 0
	})
	r.e.nextCycles(5)
	m := r.e.metrics()
	if f := r.e.findings(); len(f) != 0 || m["cks_drift_up"] != 1 {
		r.t.Fatalf("after the clean cycles: findings %v, up %v", f, m["cks_drift_up"])
	}
	for k, v := range matching(m, `^cks_drift_kubectl_reachable\{`) {
		if v != 1 {
			r.t.Fatalf("%s = %v after the clean cycles", k, v)
		}
	}
	if s := r.notifierState(); len(s.Clusters) != 0 || len(owed(s)) != 0 {
		r.t.Fatalf("the state file still owes: %v (clusters %v)", owed(s), s.Clusters)
	}
}

func (r *soakRun) waitFor(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out waiting for %s; owed: %v; findings: %v", what, owed(r.notifierState()), r.e.findings())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// check compares CloudStack's records with the drift the soak caused and the exporter reported.
func (r *soakRun) check(m map[string]float64) {
	t := r.t
	if len(r.invented) > 0 {
		t.Errorf("findings the soak did not cause: %q", r.invented)
	}
	if len(r.unexpectedErr) > 0 {
		t.Errorf("unexpected WARN/ERROR lines: %q", r.unexpectedErr)
	}
	type row struct {
		desc     string
		typ      int
		archived bool
	}
	type ann struct{ clusterID, text string }
	var rows []row
	var anns []ann
	r.e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			rows = append(rows, row{a.Description, a.Type, a.Archived})
		}
		for _, a := range w.Annotations {
			if !a.Removed {
				anns = append(anns, ann{a.EntityID, a.Annotation})
			}
		}
	})
	for _, d := range r.drifts {
		warn, alerts := 0, 0
		for _, a := range anns {
			if strings.HasPrefix(a.text, "[WARN] ") && strings.Contains(a.text, d.needle) {
				warn++
			}
		}
		for _, a := range rows {
			if strings.Contains(a.desc, d.needle) {
				alerts++
				if !a.archived {
					t.Errorf("%s: its alert is not archived after it cleared", d.name)
				}
			}
		}
		reported := r.reported[d.name]
		switch {
		case reported > 1:
			t.Errorf("%s: reported %d times (resolved falsely in between)", d.name, reported)
		case warn > 1 || alerts > 1:
			t.Errorf("%s: %d [WARN] annotations, %d alerts: announced twice", d.name, warn, alerts)
		case reported == 0 && warn+alerts > 0:
			t.Errorf("%s: announced but never reported", d.name)
		case (d.annotatedAtUndo || d.presentAtEnd) && warn != 1:
			t.Errorf("%s: %d [WARN] annotations, want 1 (lost)", d.name, warn)
		case d.presentAtEnd && !d.cappedAtEnd && alerts != 1:
			t.Errorf("%s: %d alerts, want 1 (lost)", d.name, alerts)
		}
	}
	for _, c := range r.cs {
		for _, side := range []collector.Side{collector.SideVM, collector.SideNode} {
			info := notifier.InfoAnnotation(notifier.Resolution(side, c.Name))
			var seq []string // this side's annotations in order
			for _, a := range anns {
				if a.clusterID != c.ID {
					continue
				}
				isNode := strings.HasPrefix(a.text, "[WARN] Kubernetes node ")
				switch {
				case a.text == info:
					seq = append(seq, "INFO")
				case strings.HasPrefix(a.text, "[WARN] ") && isNode == (side == collector.SideNode):
					seq = append(seq, "WARN")
				}
			}
			infos := count(seq, "INFO")
			if count(seq, "WARN") > 0 && (len(seq) == 0 || seq[len(seq)-1] != "INFO") {
				t.Errorf("%s %s side: the last annotation is not the resolution: %v", c.Name, side, seq)
			}
			if logged := r.resolved[c.Name+"/"+string(side)]; infos > logged {
				t.Errorf("%s %s side: %d [INFO] annotations for %d resolutions", c.Name, side, infos, logged)
			}
		}
	}
	if c := m["cks_drift_cycles_total"]; c == 0 {
		t.Error("no cycle counted")
	}

	// The heap: bounded, and not growing steadily (the samples of cycles 200-400 against the last
	// three).
	var peak uint64
	for _, h := range r.heap {
		peak = max(peak, h)
	}
	if peak > soakHeapBound {
		t.Errorf("peak live heap %d MiB, bound %d MiB", peak>>20, soakHeapBound>>20)
	}
	if p := slices.Max(append([]uint64{0}, r.rss...)); p > soakRSSBound {
		t.Errorf("peak RSS %d MiB, bound %d MiB", p>>20, soakRSSBound>>20)
	}
	if n := len(r.heap); n >= 6 {
		early := slices.Max(r.heap[1:4])
		late := slices.Max(r.heap[n-3:])
		if float64(late) > float64(early)*soakGrowthRatio+soakGrowthSlack {
			t.Errorf("the live heap grew from %d KiB to %d KiB: %v", early>>10, late>>10, r.heap)
		}
	}
}

// soakGoroutines names the function each goroutine of the process is in.
func soakGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) >= 2 {
			fn := lines[1]
			if i := strings.LastIndexByte(fn, '('); i > 0 {
				fn = fn[:i]
			}
			out = append(out, fn)
		}
	}
	return out
}

// report logs the soak's figures, the ones docs/reliability.md records.
func (r *soakRun) report(m map[string]float64, d time.Duration, before, after int) {
	t := r.t
	var kinds []string
	total := 0
	for k, n := range r.injected {
		kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
		total += n
	}
	sort.Strings(kinds)
	t.Logf("faults injected: %d (%s)", total, strings.Join(kinds, "; "))
	caused, reported, dropped, unseen, vm, node := len(r.drifts), 0, 0, 0, 0, 0
	for _, dr := range r.drifts {
		if dr.node {
			node++
		} else {
			vm++
		}
		switch {
		case r.reported[dr.name] > 0:
			reported++
			if dr.reportedAtUndo && !dr.annotatedAtUndo {
				dropped++
			}
		default:
			unseen++
		}
	}
	t.Logf("drift: %d caused (%d stray VMs, %d ghost nodes), %d reported, %d undone before any cycle saw them, %d undone while their announcement was under way",
		caused, vm, node, reported, unseen, dropped)
	var warn, info, alerts, summaries, alertDropped int
	r.e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, dr := range r.drifts {
			annotated, alerted := false, false
			for _, a := range w.Annotations {
				annotated = annotated || strings.HasPrefix(a.Annotation, "[WARN] ") && strings.Contains(a.Annotation, dr.needle)
			}
			for _, a := range w.Alerts {
				alerted = alerted || strings.Contains(a.Description, dr.needle)
			}
			if annotated && !alerted {
				alertDropped++
			}
		}
		for _, a := range w.Annotations {
			switch {
			case strings.HasPrefix(a.Annotation, "[WARN] "):
				warn++
			case strings.HasPrefix(a.Annotation, "[INFO] "):
				info++
			}
		}
		for _, a := range w.Alerts {
			if a.Type == config.Defaults().Notifier.AlertTypeMax { // the summary's type
				summaries++
			} else {
				alerts++
			}
		}
	})
	resolutions := 0
	for _, n := range r.resolved {
		resolutions += n
	}
	t.Logf("announcements: %d [WARN] annotations, %d [INFO] annotations, %d finding alerts, %d summary alerts, %v capped; "+
		"%d findings cleared while their alert was still owed (annotated, alert dropped); %d resolutions logged, %d of them superseded by new drift before CloudStack took them",
		warn, info, alerts, summaries, m["cks_drift_notifications_capped_total"], alertDropped, resolutions, resolutions-info)
	t.Logf("exporter counters: %v cycles, %v failed cycles, %v notifier call failures; kubectl failures %v",
		m["cks_drift_cycles_total"], m["cks_drift_cycle_failures_total"], m["cks_drift_notification_failures_total"],
		matching(m, `^cks_drift_kubectl_failures_total`))
	var logs []string
	for k, n := range r.logCounts {
		logs = append(logs, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(logs)
	t.Logf("log lines: %s", strings.Join(logs, "; "))
	var samples []string
	var peak, peakRSS uint64
	for i := range r.heap {
		samples = append(samples, fmt.Sprintf("%d:%.1f/%.0f", r.atCycle[i], float64(r.heap[i])/(1<<20), float64(r.rss[i])/(1<<20)))
		peak, peakRSS = max(peak, r.heap[i]), max(peakRSS, r.rss[i])
	}
	t.Logf("live heap / RSS in MiB by cycle: %s", strings.Join(samples, " "))
	t.Logf("peak live heap %.1f MiB, peak RSS %.0f MiB; goroutines %d before, %d after; %v",
		float64(peak)/(1<<20), float64(peakRSS)/(1<<20), before, after, d.Round(time.Second))
}
