package exporter

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// The soak runs the exporter for 1,000 short cycles against the simulator while random faults
// come and go (API errors, rate limits, slow and garbled answers; refused, garbled and hanging
// SSH; failing notifier calls, including ones whose outcome is unknown) and drift is caused and
// undone at random. Every drift gets a name of its own (a stray VM, a ghost Kubernetes node), so
// that each finding has exactly one episode and CloudStack's records can be checked per
// finding. At the end the faults are cleared, the drift undone and a few clean cycles run; then
// no goroutine may be left, the heap must have stayed bounded, every finding the exporter
// reported must have exactly one [WARN] annotation and at most one alert, every side one final
// [INFO], and the state file nothing owed.
//
//	CKS_DRIFT_SOAK=1           run it (make soak)
//	CKS_DRIFT_SOAK_CYCLES=n    cycles (default 1000)
//	CKS_DRIFT_SOAK_SEED=n      replay the random decisions of a logged seed (cycle timing still varies)

// The heap is sampled after a collection every 100 cycles: the live heap of the whole test
// process (exporter and simulator, whose world grows a little with every drift episode). The
// bound is far above what the soak needs (a few MiB); the growth allowed between the early and
// the late samples would be exceeded by a leak of about 10 KiB per cycle.
// The resident set is only bounded loosely: under -race it includes the detector's shadow memory,
// and the Go runtime returns freed memory to the system lazily.
const (
	soakHeapBound   = 64 << 20
	soakGrowthRatio = 1.25
	soakGrowthSlack = 4 << 20
	soakRSSBound    = 1 << 30
)

type soakDrift struct {
	name, needle string // the VM or node name; how annotations and alerts name it
	cluster      int
	node         bool // a ghost node (node side) rather than a stray VM (VM side)
	undo         func()
	undone       bool
	// What was true when the drift was undone.
	reportedAtUndo, annotatedAtUndo bool
	presentAtEnd, cappedAtEnd       bool
}

type soakFault struct {
	kind, command string
	left          int
}

type soakRun struct {
	t       *testing.T
	e       *env
	cs      []simulator.Cluster
	rng     *rand.Rand
	started time.Time

	drifts []*soakDrift
	byName map[string]*soakDrift
	ghosts map[int][]string

	api, notify *soakFault
	ssh         map[int]*soakFault
	injected    map[string]int

	// From the exporter's log.
	reported      map[string]int // new-finding WARN lines by vm_name
	resolved      map[string]int // resolution INFO lines by "cluster/side"
	logCounts     map[string]int
	unexpectedErr []string
	invented      []string

	heap, rss []uint64
	atCycle   []uint64
}

func TestSoak(t *testing.T) {
	if os.Getenv("CKS_DRIFT_SOAK") != "1" {
		t.Skip("opt-in: 1,000 cycles with random faults take minutes; run make soak or set CKS_DRIFT_SOAK=1")
	}
	cycles := soakEnvInt(t, "CKS_DRIFT_SOAK_CYCLES", 1000)
	seed := int64(soakEnvInt(t, "CKS_DRIFT_SOAK_SEED", int(time.Now().UnixNano()%1_000_000_000)))
	t.Logf("seed %d (CKS_DRIFT_SOAK_SEED=%d replays its random decisions), %d cycles", seed, seed, cycles)

	// Goroutines of the test binary before the soak (TestMain's, the testing package's) are not
	// the exporter's.
	leakBase := goleak.IgnoreCurrent()
	goroutinesBefore := runtime.NumGoroutine()

	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha"}, simulator.ClusterSpec{Name: "bravo"},
		simulator.ClusterSpec{Name: "charlie", Workers: 3}, simulator.ClusterSpec{Name: "delta", Workers: 1})
	e.writeConfig("  interval: 25ms\n", "")
	e.editConfig("cloudstack:\n", "cloudstack:\n  timeout: 1s\n")
	e.editConfig("  timeout: 5s\n", "  timeout: 500ms\n") // ssh
	r := &soakRun{t: t, e: e, cs: cs, rng: rand.New(rand.NewSource(seed)), byName: map[string]*soakDrift{},
		ghosts: map[int][]string{}, ssh: map[int]*soakFault{}, injected: map[string]int{},
		reported: map[string]int{}, resolved: map[string]int{}, logCounts: map[string]int{}}
	r.started = time.Now()
	e.start()

	var last uint64
	for int(last) < cycles {
		last = r.waitCycle(last)
		r.drainLogs()
		r.tick()
		if last%25 == 0 {
			r.scrape()
		}
		if last/100 > uint64(len(r.heap)) {
			r.sample(last)
		}
	}
	duration := time.Since(r.started)
	t.Logf("%d cycles in %v", last, duration.Round(time.Second))

	r.finish()
	m := e.metrics()
	e.stop()
	r.drainLogs()
	r.check(m)

	e.sim.Close()
	http.DefaultClient.CloseIdleConnections() // the test's own scrapes
	goleak.VerifyNone(t, leakBase)
	goroutinesAfter := runtime.NumGoroutine()
	r.report(m, duration, goroutinesBefore, goroutinesAfter)
	t.Logf("goroutines after: %s", strings.Join(soakGoroutines(), "; "))
}

func soakEnvInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// waitCycle waits until a cycle after last has completed and returns the count.
func (r *soakRun) waitCycle(last uint64) uint64 {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if n := r.e.exp.Snapshot().Cycles; n > last {
			return n
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no cycle completed for 2 minutes after cycle %d", last)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// tick ages the faults, injects new ones and causes or undoes drift, all at random.
func (r *soakRun) tick() {
	cs := r.e.sim.CloudStack
	if r.api != nil {
		if r.api.left--; r.api.left <= 0 {
			cs.SetFault(r.api.command, cloudstacktest.Fault{}) // a zero fault lets calls through
			r.api = nil
		}
	}
	if r.notify != nil {
		if r.notify.left--; r.notify.left <= 0 {
			cs.SetFault(r.notify.command, cloudstacktest.Fault{})
			r.notify = nil
		}
	}
	for i, f := range r.ssh {
		if f.left--; f.left <= 0 {
			r.e.sim.Node(r.cs[i].ID).SetMode(sshtest.Normal)
			delete(r.ssh, i)
		}
	}

	if r.api == nil && r.rng.Float64() < 0.04 {
		command := []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"}[r.rng.Intn(3)]
		kinds := []struct {
			kind  string
			fault cloudstacktest.Fault
			max   int
		}{
			{"API 530", cloudstacktest.Fault{Status: 530}, 10},
			{"API 502 HTML page", cloudstacktest.Fault{Status: 502, RawBody: "<html><h1>502 Bad Gateway</h1></html>"}, 10},
			{"API garbage with 200", cloudstacktest.Fault{RawBody: "<html>maintenance</html>"}, 10},
			{"API 429 with Retry-After", cloudstacktest.Fault{Status: 429, RetryAfter: "1"}, 10},
			{"API 429 without Retry-After", cloudstacktest.Fault{Status: 429}, 10},
			{"API slower than the timeout", cloudstacktest.Fault{Delay: 3 * time.Second}, 2},
			{"API pages not adding up to count", cloudstacktest.Fault{CountDelta: 2}, 10},
		}
		k := kinds[r.rng.Intn(len(kinds))]
		cs.SetFault(command, k.fault)
		r.api = &soakFault{kind: k.kind, command: command, left: 1 + r.rng.Intn(k.max)}
		r.injected[k.kind]++
	}
	if r.notify == nil && r.rng.Float64() < 0.06 {
		kinds := []struct{ kind, command string }{
			{"generateAlert 530", "generateAlert"},
			{"generateAlert 429", "generateAlert"},
			{"addAnnotation 530", "addAnnotation"},
			{"archiveAlerts 530", "archiveAlerts"},
			{"listAlerts 530 (look-ups, verification)", "listAlerts"},
			{"listAnnotations 530 (look-ups)", "listAnnotations"},
			{"queryAsyncJobResult 530 (alert stored, outcome unknown)", "queryAsyncJobResult"},
		}
		k := kinds[r.rng.Intn(len(kinds))]
		status := 530
		if strings.Contains(k.kind, "429") {
			status = 429
		}
		cs.SetFault(k.command, cloudstacktest.Fault{Status: status})
		r.notify = &soakFault{kind: k.kind, command: k.command, left: 1 + r.rng.Intn(15)}
		r.injected[k.kind]++
	}
	if i := r.rng.Intn(len(r.cs)); r.ssh[i] == nil && r.rng.Float64() < 0.05 {
		modes := []sshtest.Mode{sshtest.Refuse, sshtest.Garbage, sshtest.FailCommand, sshtest.HangHandshake,
			sshtest.HangCommand, sshtest.Refuse, sshtest.Garbage, sshtest.Huge}
		mode := modes[r.rng.Intn(len(modes))]
		r.e.sim.Node(r.cs[i].ID).SetMode(mode)
		r.ssh[i] = &soakFault{kind: "SSH " + mode.String(), left: 1 + r.rng.Intn(10)}
		r.injected["SSH "+mode.String()]++
	}

	active := 0
	for _, d := range r.drifts {
		if !d.undone {
			active++
		}
	}
	if active < 12 && r.rng.Float64() < 0.12 {
		r.cause(r.rng.Intn(len(r.cs)), r.rng.Intn(2) == 0)
	}
	if r.rng.Float64() < 0.10 {
		r.undoOne()
	}
}

// cause creates a drift with a name never used before.
func (r *soakRun) cause(i int, node bool) {
	c := r.cs[i]
	d := &soakDrift{cluster: i, node: node}
	if node {
		d.name = fmt.Sprintf("ghost-%s-%04d", c.Name, len(r.drifts))
		d.needle = "Kubernetes node " + d.name + " of cluster"
		r.ghosts[i] = append(r.ghosts[i], d.name)
		r.setNodes(i)
		d.undo = func() {
			r.ghosts[i] = slices.DeleteFunc(r.ghosts[i], func(g string) bool { return g == d.name })
			r.setNodes(i)
		}
	} else {
		created := r.started.Add(-20*time.Minute - time.Duration(len(r.drifts))*time.Second)
		name, expunge, err := r.e.sim.AddStrayVM(c.ID, created)
		if err != nil {
			r.t.Fatal(err)
		}
		d.name, d.needle, d.undo = name, "VM "+name+" (", expunge
	}
	r.drifts = append(r.drifts, d)
	r.byName[d.name] = d
}

func (r *soakRun) setNodes(i int) {
	var names []string
	for _, vm := range r.cs[i].VMs {
		names = append(names, strings.ToLower(vm))
	}
	r.e.sim.Node(r.cs[i].ID).SetNodes(append(names, r.ghosts[i]...)...)
}

// undoOne undoes a random drift that is either announced or not reported yet. A reported drift
// whose annotation has not got through is left until it has: undoing it then would only test
// that a finding gone before it was announced is dropped, and would hide a lost announcement.
func (r *soakRun) undoOne() {
	annotations := r.e.annotations()
	var eligible []*soakDrift
	for _, d := range r.drifts {
		if d.undone {
			continue
		}
		annotated := count(annotations, "[WARN] "+d.needle) > 0
		if annotated || r.reported[d.name] == 0 {
			eligible = append(eligible, d)
		}
	}
	if len(eligible) == 0 {
		return
	}
	d := eligible[r.rng.Intn(len(eligible))]
	d.annotatedAtUndo = count(annotations, "[WARN] "+d.needle) > 0
	d.reportedAtUndo = r.reported[d.name] > 0
	d.undo()
	d.undone = true
}

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
func (r *soakRun) notifierState() notifier.State {
	raw, err := r.e.exp.store.LoadNotifierState()
	if err != nil {
		r.t.Fatal(err)
	}
	var s notifier.State
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			r.t.Fatal(err)
		}
	}
	return s
}

// owed lists what the notifier still owes CloudStack.
func owed(s notifier.State) []string {
	var out []string
	for id, c := range s.Clusters {
		for side, ss := range c.Sides {
			if ss.Resolution != nil {
				out = append(out, fmt.Sprintf("%s/%s resolution", c.Name, side))
			}
			for key, a := range ss.Findings {
				if !a.Announced() {
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

// report logs the soak's figures, the ones RELIABILITY.md records.
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
