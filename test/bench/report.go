package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// machine describes where the benchmark ran.
type machine struct {
	Date      string `json:"date"`
	CPU       string `json:"cpu"`
	NProc     int    `json:"nproc"`
	MemGiB    string `json:"mem_gib"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
	LoadAvg   string `json:"load_average_at_start"`
	NoFile    string `json:"open_files_limit"`
}

func describeMachine() machine {
	m := machine{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), NProc: runtime.NumCPU(), GoVersion: runtime.Version()}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kib int64
		for _, l := range strings.Split(string(raw), "\n") {
			if _, err := fmt.Sscanf(l, "MemTotal: %d kB", &kib); err == nil {
				m.MemGiB = fmt.Sprintf("%.1f", float64(kib)/(1<<20))
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(raw))
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(raw))
		if len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	if out, err := exec.Command("sh", "-c", "ulimit -n").Output(); err == nil {
		m.NoFile = strings.TrimSpace(string(out))
	}
	return m
}

func (o options) describe() map[string]string {
	return map[string]string{
		"latency": o.latency.String(), "handshake": o.handshake.String(), "hang": fmt.Sprint(o.hang),
		"strays": strconv.Itoa(o.strays), "projects": fmt.Sprint(o.projects), "concurrency": strconv.Itoa(o.concurrency),
		"ssh_timeout": o.sshTimeout.String(), "page_size": strconv.Itoa(o.pageSize), "include_projects": strconv.FormatBool(o.includeProjects),
		"host_key_policy": o.hostKeyPolicy, "exporter_env": strings.Join(o.exporterEnv, " "),
	}
}

// report is a whole run.
type report struct {
	Machine  machine           `json:"machine"`
	Command  string            `json:"command"`
	Options  map[string]string `json:"options"`
	Worlds   []worldResult     `json:"worlds"`
	GoBench  *goBench          `json:"go_benchmarks,omitempty"`
	Finished time.Time         `json:"finished"`
}

// sections are the generated parts of docs/benchmarks.md, each between its markers.
type sections struct {
	results string // empty when no world ran
	goBench string // empty when the Go benchmarks did not run
}

const (
	resultsStart = "<!-- bench:results:start -->"
	resultsEnd   = "<!-- bench:results:end -->"
	goStart      = "<!-- bench:go:start -->"
	goEnd        = "<!-- bench:go:end -->"
)

func (s sections) all() string { return s.results + s.goBench }

// update replaces the generated sections of path, between their markers, leaving the rest.
func (s sections) update(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(raw)
	for _, part := range []struct{ start, end, body string }{{resultsStart, resultsEnd, s.results}, {goStart, goEnd, s.goBench}} {
		if part.body == "" {
			continue
		}
		i, j := strings.Index(text, part.start), strings.Index(text, part.end)
		if i < 0 || j < i {
			return fmt.Errorf("%s: markers %s ... %s not found", path, part.start, part.end)
		}
		text = text[:i+len(part.start)] + "\n" + part.body + text[j:]
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

func secs(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f s", v)
	case v >= 10:
		return fmt.Sprintf("%.1f s", v)
	default:
		return fmt.Sprintf("%.2f s", v)
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (r report) markdown(o options) sections {
	var s sections
	if len(r.Worlds) > 0 {
		s.results = r.resultsMarkdown(o)
	}
	if r.GoBench != nil {
		s.goBench = r.GoBench.markdown(r.Machine)
	}
	return s
}

func (r report) resultsMarkdown(o options) string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "Measured %s on %s (%d cores, %s GiB), Linux %s, %s; load average at start %s; open files limit %s.\n\n",
		m.Date, m.CPU, m.NProc, m.MemGiB, m.Kernel, m.GoVersion, m.LoadAvg, m.NoFile)
	fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	fmt.Fprintf(&b, "Every world: %s clusters × 3 VMs (1 control, 2 workers; 3 port-forwarding rules each; %s%% of the clusters in projects; %d service offerings) "+
		"+ %s VMs of no cluster; API latency %s per request; SSH handshake delay %s; %s%% of the control nodes hang until ssh.timeout (%s); "+
		"%s%% of the clusters have drift, one piece each, of the kinds the API shows in turn (%s). "+
		"Exporter: check.concurrency as in each row (default %d), cloudstack.page_size %d, include_projects %t, host_key_policy %s, notifier.concurrency %d, "+
		"the notifier's other settings at their defaults.\n\n",
		"N", fmt.Sprint(o.projects*100), world.Offerings, thousands(o.strays), o.latency, o.handshake, fmt.Sprint(o.hang*100), o.sshTimeout,
		fmt.Sprint(o.drift*100), strings.Join(world.DriftKinds, ", "), o.concurrency, o.pageSize, o.includeProjects, o.hostKeyPolicy, o.notifierConcurrency)
	if len(o.exporterEnv) > 0 {
		fmt.Fprintf(&b, "Exporter environment: `%s`.\n\n", strings.Join(o.exporterEnv, " "))
	}

	b.WriteString("**Cycle wall time** (`cks_drift_cycle_duration_seconds`). *Warm*: the second cycle, started with `POST /-/check`, in which no finding is new; " +
		"*cold*: the first, at start, which also pins every host key in the state file and announces every finding (its bound adds the notifier's own, below). " +
		"Findings are the exporter's `cks_drift_finding` series after the warm cycle; the run fails unless they are exactly the world's drift.\n\n")
	b.WriteString("| clusters | concurrency | VMs | hanging | findings | cycle (warm) | lower bound | warm ÷ bound | cycle (cold) | cold bound | cold ÷ bound | one-at-a-time | speed-up |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Worlds {
		_, vms, _ := w.Counts.Totals()
		seq := secs(w.Seq.WorldSeconds)
		if w.Seq.Extrapolated {
			seq += "*"
		}
		coldBound := w.Bound.ColdSeconds + w.NotifyBound.Seconds
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %s | %s | %.2f× | %s | %s | %.2f× | %s | %.1f× |\n",
			thousands(w.Clusters), w.Concurrency, thousands(vms), w.Counts.Hanging, w.Findings, secs(w.WarmCycle), secs(w.Bound.Seconds),
			w.WarmCycle/w.Bound.Seconds, secs(w.ColdCycle), secs(coldBound), w.ColdCycle/coldBound, seq, w.Seq.WorldSeconds/w.WarmCycle)
	}
	b.WriteString("\n\\* extrapolated from a sample (see below).\n\n")

	b.WriteString("**API calls and SSH per cycle** (counted by the fake CloudStack and the fake control nodes during the warm cycle; " +
		"the mean time of a node listing that did not hang, from `cks_drift_node_list_duration_seconds` (the fake control node waits the handshake delay first); " +
		"the bytes of the API's answer bodies, counted by the fake; " +
		"bytes the exporter's process read meanwhile, from `/proc/PID/io` (rchar): the API's answers with their HTTP headers, SSH, and the benchmark's own requests, " +
		"a few kilobytes).\n\n")
	b.WriteString("| clusters | concurrency | API calls | of which list pages needed | target ≤ | notifier calls | one-at-a-time API calls | SSH connections | SSH sessions | one-at-a-time SSH connections | node listing, mean (not hanging) | API answers | exporter read |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Worlds {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %.0f ms | %.1f MiB | %.1f MiB |\n", thousands(w.Clusters), w.Concurrency, w.WarmAPITotal, w.Bound.Pages, w.Bound.APITarget,
			w.WarmNotifyTotal, thousands(w.Seq.WorldCalls), thousands(w.WarmSSH.Connections), thousands(w.WarmSSH.Sessions), thousands(w.Seq.WorldSSH), w.ListMeanHealthy*1000, float64(w.WarmAPIBytes)/(1<<20),
			float64(w.WarmRead)/(1<<20))
	}
	b.WriteString("\n")

	b.WriteString("**The notifier in the cold cycle**, where every finding is new: its CloudStack calls (every call that is not an inventory list), " +
		"its pass (`cks_drift_notify_duration_seconds`: planning, calls and the state write) and the lower bound of its own calls " +
		"(notifier.concurrency calls at a time, never fewer rounds than one cluster's chain of calls, then the capped-alerts summary's four calls).\n\n")
	b.WriteString("| clusters | concurrency | new findings | notifier calls | calls by command | notifier pass | its lower bound | ÷ bound |\n")
	b.WriteString("|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, w := range r.Worlds {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s = %s | %.2f× |\n", thousands(w.Clusters), w.Concurrency, w.Findings, w.ColdNotifyTotal,
			callList(w.ColdNotifyCalls), secs(w.NotifySeconds), w.NotifyBound.Formula, secs(w.NotifyBound.Seconds), ratio(w.NotifySeconds, w.NotifyBound.Seconds))
	}
	b.WriteString("\n")

	b.WriteString("**Memory, CPU and `/metrics`.** Peak RSS is `VmHWM` of the exporter's own process over its whole life (both cycles and every scrape). " +
		"CPU is user + system time of the exporter's process (`/proc/PID/stat`): from its start to the end of the cold cycle, and over the warm cycle. " +
		"`/metrics` is fetched as Prometheus does (OpenMetrics text, gzip), one request at a time, time to the last byte on the wire: " +
		"*idle* between the cycles, *during* spread over the warm cycle (only answers that still showed the previous cycle count).\n\n")
	b.WriteString("| clusters | concurrency | exporter peak RSS | (peak after cold cycle / idle scrapes; RSS at end) | one-at-a-time peak RSS | exporter CPU (start + cold / warm) | /metrics p50 / p99 idle | /metrics p50 / p99 during a cycle | series | /metrics size |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Worlds {
		fmt.Fprintf(&b, "| %s | %d | %.1f MiB | %.1f / %.1f; %.1f MiB | %.1f MiB | %.1f / %.1f s | %.1f / %.1f ms (n=%d) | %.1f / %.1f ms (n=%d) | %s | %s KiB (%s KiB gzip) |\n",
			thousands(w.Clusters), w.Concurrency, mib(w.PeakRSSKiB), mib(w.PeakAfterColdKiB), mib(w.PeakAfterIdleKiB), mib(w.EndRSSKiB), mib(w.Seq.PeakRSSKiB),
			w.ColdCPUSeconds, w.WarmCPUSeconds, w.IdleLatency.P50, w.IdleLatency.P99, w.IdleLatency.N, w.CycleLatency.P50, w.CycleLatency.P99, w.CycleLatency.N,
			thousands(w.Series), thousands(w.MetricsBytes/1024), thousands(w.MetricsWire/1024))
	}
	b.WriteString("\n")
	b.WriteString(r.cpuMarkdown())

	b.WriteString("**References.**\n\n")
	for _, w := range r.Worlds {
		fmt.Fprintf(&b, "- %s clusters at concurrency %d: lower bound of the warm cycle %s = %s; of the cold cycle, before the notifier's, %s = %s. API calls in the warm cycle: %s. ",
			thousands(w.Clusters), w.Concurrency, secs(w.Bound.Seconds), w.Bound.Formula, secs(w.Bound.ColdSeconds), w.Bound.ColdFormula, callList(w.WarmAPI))
		each := fmt.Sprintf("%.3f s per healthy cluster", w.Seq.MeanHealthy)
		if w.Seq.SampledHanging > 0 {
			each += fmt.Sprintf(", %.2f s per hanging one", w.Seq.MeanHanging)
		}
		if w.Seq.Extrapolated {
			fmt.Fprintf(&b, "One-at-a-time: %d healthy + %d hanging clusters visited in %s (%s; discovery %.2f s, %d calls), extrapolated linearly to %s clusters.\n",
				w.Seq.SampledHealthy, w.Seq.SampledHanging, secs(w.Seq.MeasuredSeconds), each, w.Seq.DiscoverySeconds, w.Seq.DiscoveryCalls, thousands(w.Clusters))
		} else {
			fmt.Fprintf(&b, "One-at-a-time: every cluster visited, %s measured (%s; discovery %.2f s, %d calls).\n",
				secs(w.Seq.MeasuredSeconds), each, w.Seq.DiscoverySeconds, w.Seq.DiscoveryCalls)
		}
	}
	b.WriteString("\n")
	b.WriteString(r.targetsMarkdown())
	return b.String()
}

// cpuMarkdown is the exporter's CPU per cluster and warm cycle, world by world, against the
// world of 1,000 clusters at the default concurrency.
func (r report) cpuMarkdown() string {
	var b strings.Builder
	ref, hasRef := r.run(1000, r.defaultConcurrency())
	b.WriteString("**Exporter CPU per cluster and cycle** (warm cycle; the 20,000 VMs of no cluster are read whatever the number of clusters, " +
		"so small worlds pay more per cluster).\n\n| clusters | concurrency | CPU (warm cycle) | per cluster | ÷ at 1,000 clusters |\n|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Worlds {
		per := w.WarmCPUSeconds / float64(w.Clusters) * 1000
		vs := "–"
		if hasRef {
			vs = fmt.Sprintf("%.2f×", per/(ref.WarmCPUSeconds/float64(ref.Clusters)*1000))
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f s | %.2f ms | %s |\n", thousands(w.Clusters), w.Concurrency, w.WarmCPUSeconds, per, vs)
	}
	b.WriteString("\n")
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func callList(calls map[string]int) string {
	var parts []string
	for _, k := range []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"} {
		if calls[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", calls[k], k))
		}
	}
	for k, v := range calls {
		if !strings.HasPrefix(k, "list") || (k != "listKubernetesClusters" && k != "listVirtualMachines" && k != "listPortForwardingRules") {
			parts = append(parts, fmt.Sprintf("%d %s", v, k))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// run returns the world of n clusters measured at concurrency c.
func (r report) run(n, c int) (worldResult, bool) {
	for _, w := range r.Worlds {
		if w.Clusters == n && w.Concurrency == c {
			return w, true
		}
	}
	return worldResult{}, false
}

// sequential returns the one-at-a-time result of a world of n clusters measured earlier in the run.
func (r report) sequential(n int) (seqResult, bool) {
	for _, w := range r.Worlds {
		if w.Clusters == n {
			return w.Seq, true
		}
	}
	return seqResult{}, false
}

// defaultConcurrency is the concurrency of the run's first world (the -concurrency flag's unless
// the first world names its own).
func (r report) defaultConcurrency() int {
	if len(r.Worlds) == 0 {
		return 0
	}
	return r.Worlds[0].Concurrency
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// recommendedConcurrency is the README's check.concurrency for a cloud of n clusters.
func recommendedConcurrency(n int) int {
	switch {
	case n <= 2500:
		return 16
	case n <= 5000:
		return 32
	default:
		return 64
	}
}

func (r report) targetsMarkdown() string {
	var b strings.Builder
	b.WriteString("**Targets** (at the default latencies).\n\n| target | measured | result |\n|---|---|---|\n")
	const big = 10000
	var bigRuns []worldResult
	for _, w := range r.Worlds {
		if w.Clusters == big {
			bigRuns = append(bigRuns, w)
		}
	}
	if len(bigRuns) == 0 {
		b.WriteString("| 10,000 clusters with drift | not run | – |\n")
	}
	for _, w := range bigRuns {
		warm := w.WarmCycle / w.Bound.Seconds
		cold := w.ColdCycle / (w.Bound.ColdSeconds + w.NotifyBound.Seconds)
		fmt.Fprintf(&b, "| 10,000 clusters, concurrency %d: warm cycle ≤ 1.10 × lower bound | %s = %.2f × %s | %s |\n",
			w.Concurrency, secs(w.WarmCycle), warm, secs(w.Bound.Seconds), verdict(warm <= 1.10))
		fmt.Fprintf(&b, "| 10,000 clusters, concurrency %d: cold cycle ≤ 1.15 × lower bound (with the notifier's) | %s = %.2f × %s | %s |\n",
			w.Concurrency, secs(w.ColdCycle), cold, secs(w.Bound.ColdSeconds+w.NotifyBound.Seconds), verdict(cold <= 1.15))
		if w.Concurrency == recommendedConcurrency(big) {
			fmt.Fprintf(&b, "| 10,000 clusters at the recommended concurrency (%d): whole cycle < 300 s | warm %s, cold %s | %s |\n",
				w.Concurrency, secs(w.WarmCycle), secs(w.ColdCycle), verdict(w.WarmCycle < 300 && w.ColdCycle < 300))
		}
		fmt.Fprintf(&b, "| 10,000 clusters, concurrency %d: peak RSS ≤ 150 MiB | %.1f MiB | %s |\n", w.Concurrency, mib(w.PeakRSSKiB), verdict(mib(w.PeakRSSKiB) <= 150))
		fmt.Fprintf(&b, "| 10,000 clusters, concurrency %d: /metrics p99 ≤ 10 ms, also during a cycle | idle %.1f ms, during a cycle %.1f ms | %s |\n",
			w.Concurrency, w.IdleLatency.P99, w.CycleLatency.P99, verdict(w.IdleLatency.P99 <= 10 && w.CycleLatency.P99 <= 10))
	}
	if ref, ok := r.run(1000, r.defaultConcurrency()); ok {
		perRef := ref.WarmCPUSeconds / float64(ref.Clusters)
		var parts []string
		ok := true
		for _, w := range r.Worlds {
			if w.Clusters > ref.Clusters {
				per := w.WarmCPUSeconds / float64(w.Clusters)
				parts = append(parts, fmt.Sprintf("%s at %d: %.2f ms", thousands(w.Clusters), w.Concurrency, per*1000))
				ok = ok && per <= perRef
			}
		}
		fmt.Fprintf(&b, "| exporter CPU per cluster and cycle no higher than at 1,000 clusters (%.2f ms) | %s | %s |\n", perRef*1000, strings.Join(parts, "; "), verdict(ok))
	}
	var calls []string
	notifyOK := true
	for _, w := range r.Worlds {
		calls = append(calls, fmt.Sprintf("%s: %d for %d", thousands(w.Clusters), w.ColdNotifyTotal, w.Findings))
		notifyOK = notifyOK && w.WarmNotifyTotal == 0 && w.ColdNotifyTotal <= w.Findings+notifierOverhead
	}
	fmt.Fprintf(&b, "| notifier calls grow with new findings, not with clusters: ≤ new findings + %d in the cold cycle, none in the warm one | %s | %s |\n",
		notifierOverhead, strings.Join(calls, "; "), verdict(notifyOK))
	var listCalls []string
	allOK := true
	for _, w := range r.Worlds {
		listCalls = append(listCalls, fmt.Sprintf("%s: %d ≤ %d", thousands(w.Clusters), w.WarmAPITotal, w.Bound.APITarget))
		allOK = allOK && w.WarmAPITotal <= w.Bound.APITarget && w.ColdAPITotal-w.ColdNotifyTotal <= w.Bound.APITarget
	}
	fmt.Fprintf(&b, "| inventory API calls per cycle ≤ 2⌈VMs/500⌉ + 2⌈clusters/500⌉ + ⌈rules/500⌉ + 5 | %s | %s |\n", strings.Join(listCalls, "; "), verdict(allOK))
	b.WriteString("\n")
	return b.String()
}

// notifierOverhead are the notifier's calls beyond one annotation per new finding at the
// default settings: max_alerts_per_cycle (5) alerts and the capped-alerts summary.
const notifierOverhead = 5*alertCalls + summaryChain

// goBench is the result of the Go benchmarks.
type goBench struct {
	Command string      `json:"command"`
	Rows    []benchLine `json:"rows"`
}

type benchLine struct {
	Package  string   `json:"package"`
	Name     string   `json:"name"`
	N        int      `json:"iterations"`
	NsPerOp  float64  `json:"ns_per_op"`
	BPerOp   int64    `json:"bytes_per_op"`
	AllocsOp int64    `json:"allocs_per_op"`
	Extra    []string `json:"extra,omitempty"` // custom metrics, e.g. "45078 series"
}

// benchRE matches a result line: name, iterations, then value-unit pairs (ns/op, custom metrics
// such as series, B/op, allocs/op) in any order.
var benchRE = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// runGoBenchmarks runs the collector's and the exporter's Go benchmarks.
func runGoBenchmarks(ctx context.Context, benchtime string) (*goBench, error) {
	args := []string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", benchtime, "-count", "1", "./collector/", "./exporter/"}
	gb := &goBench{Command: "go " + strings.Join(args, " ")}
	logf("Go benchmarks: %s", gb.Command)
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(out.Bytes())
		return nil, fmt.Errorf("go test -bench: %w", err)
	}
	pkg := ""
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		l := sc.Text()
		if p, ok := strings.CutPrefix(l, "pkg: "); ok {
			pkg = strings.TrimPrefix(p, "github.com/cks-drift-exporter/cks-drift-exporter/")
		}
		mm := benchRE.FindStringSubmatch(l)
		if mm == nil {
			continue
		}
		row := benchLine{Package: pkg, Name: mm[1]}
		row.N, _ = strconv.Atoi(mm[3])
		f := strings.Fields(mm[4])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch unit := f[i+1]; unit {
			case "ns/op":
				row.NsPerOp = v
			case "B/op":
				row.BPerOp = int64(v)
			case "allocs/op":
				row.AllocsOp = int64(v)
			default:
				row.Extra = append(row.Extra, fmt.Sprintf("%s %s", strconv.FormatFloat(v, 'f', -1, 64), unit))
			}
		}
		gb.Rows = append(gb.Rows, row)
		logf("   %s", l)
	}
	return gb, nil
}

func humanNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.0f ns", ns)
	}
}

func humanBytes(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	default:
		return fmt.Sprintf("%d B", b)
	}
}

func (g *goBench) markdown(m machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d cores), %s.\n\nCommand: `%s`\n\n", m.Date, m.CPU, m.NProc, m.GoVersion, g.Command)
	b.WriteString("| package | benchmark | iterations | time/op | ns/op | B/op | allocs/op | other |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, r := range g.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %.0f | %d (%s) | %s | %s |\n", r.Package, r.Name, r.N, humanNs(r.NsPerOp), r.NsPerOp,
			r.BPerOp, humanBytes(r.BPerOp), thousands(int(r.AllocsOp)), strings.Join(r.Extra, ", "))
	}
	b.WriteString("\n")
	return b.String()
}
