package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/bench/world"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/promtext"
)

// worldResult is everything measured for one world.
type worldResult struct {
	Clusters    int          `json:"clusters"`
	Concurrency int          `json:"concurrency"`
	Counts      world.Counts `json:"counts"`

	BuildSeconds float64 `json:"world_build_seconds"`
	// Cycle durations as the exporter reports them (cks_drift_cycle_duration_seconds).
	ColdCycle float64 `json:"cold_cycle_seconds"` // the first cycle, at start: pins every host key
	WarmCycle float64 `json:"warm_cycle_seconds"` // the second, from POST /-/check
	// WarmWall is POST /-/check until /metrics shows the new cycle: an upper bound of WarmCycle.
	WarmWall float64 `json:"warm_wall_seconds"`

	ColdAPI      map[string]int `json:"cold_api_calls"`
	WarmAPI      map[string]int `json:"warm_api_calls"`
	ColdAPITotal int            `json:"cold_api_total"`
	WarmAPITotal int            `json:"warm_api_total"`
	WarmSSH      world.SSHStats `json:"warm_ssh"`
	Unreachable  int            `json:"kubectl_unreachable"`
	Findings     int            `json:"findings"`
	// FindingsByKind are the cks_drift_finding series after the warm cycle, by kind; the run
	// fails unless they are the world's Counts.Findings exactly.
	FindingsByKind map[string]int `json:"findings_by_kind"`

	// The notifier's share of the cold cycle, where every finding is new: its CloudStack calls
	// (every call that is not an inventory list) and cks_drift_notify_duration_seconds.
	ColdNotifyCalls map[string]int `json:"cold_notifier_calls"`
	ColdNotifyTotal int            `json:"cold_notifier_total"`
	WarmNotifyTotal int            `json:"warm_notifier_total"`
	NotifySeconds   float64        `json:"notify_seconds"`
	NotifyBound     notifyBound    `json:"notify_lower_bound"`

	PeakRSSKiB int64 `json:"exporter_peak_rss_kib"`
	// Peak RSS so far at checkpoints: after the cold cycle, after the idle scrapes.
	PeakAfterColdKiB int64   `json:"exporter_peak_rss_after_cold_cycle_kib"`
	PeakAfterIdleKiB int64   `json:"exporter_peak_rss_after_idle_scrapes_kib"`
	EndRSSKiB        int64   `json:"exporter_rss_end_kib"`
	WarmCPUSeconds   float64 `json:"exporter_cpu_seconds_warm_cycle"`
	ColdCPUSeconds   float64 `json:"exporter_cpu_seconds_start_and_cold_cycle"`
	// WarmRead and WarmWritten are the bytes the exporter's process read and wrote over the warm
	// cycle (/proc/PID/io rchar, wchar). Read is nearly all the API's answers and SSH; written is
	// mostly the /metrics answers to the benchmark's own scrapes (kept in the JSON only).
	// ListMeanHealthy is the mean time of a node listing that did not hang, in the warm cycle
	// (cks_drift_node_list_duration_seconds: listings under 1 s), against the handshake delay.
	ListMeanHealthy float64 `json:"node_list_mean_healthy_seconds"`
	WarmAPIBytes    int64   `json:"api_answer_bytes_warm_cycle"` // counted by the fake
	WarmRead        int64   `json:"exporter_bytes_read_warm_cycle"`
	WarmWritten     int64   `json:"exporter_bytes_written_warm_cycle"`
	FakePeakKiB     int64   `json:"fake_peak_rss_kib"`

	IdleLatency  latency `json:"metrics_latency_idle"`
	CycleLatency latency `json:"metrics_latency_during_cycle"`
	// CycleSamples are the scrapes during the warm cycle: seconds since POST /-/check, milliseconds.
	CycleSamples [][2]float64 `json:"metrics_samples_during_cycle"`
	Series       int          `json:"series"`
	MetricsBytes int          `json:"metrics_bytes"`
	MetricsWire  int          `json:"metrics_bytes_gzip"`

	Bound bound     `json:"lower_bound"`
	Seq   seqResult `json:"one_at_a_time"`
}

// latency summarises /metrics response times in milliseconds.
type latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func summarise(ms []float64) latency {
	if len(ms) == 0 {
		return latency{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	rank := func(q float64) float64 { // nearest rank
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return latency{N: len(s), P50: rank(0.50), P99: rank(0.99), Max: s[len(s)-1]}
}

// runWorld measures one world: fake up, exporter up (cold cycle), idle scrapes, warm cycle with
// scrapes, exporter down, one-at-a-time reference, fake down.
// withSeq false skips the one-at-a-time check (a world of this size measured it already).
func runWorld(ctx context.Context, o options, bins binaries, dir string, n int, withSeq bool) (worldResult, error) {
	res := worldResult{Clusters: n, Concurrency: o.concurrency}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, err
	}
	logf("== %d clusters, check.concurrency %d: starting the simulated cloud", n, o.concurrency)
	fake, info, err := startFake(ctx, o, bins, dir, n)
	if err != nil {
		return res, err
	}
	defer fake.stop()
	res.Counts, res.BuildSeconds = info.Counts, info.BuildTime
	res.Bound = lowerBound(o, info.Counts)
	logf("   %d VMs, %d port-forwarding rules, %d hanging control nodes; lower bound of a cycle %.1f s",
		res.Counts.VMs+res.Counts.ProjectVMs, res.Counts.Rules+res.Counts.ProjectRules, res.Counts.Hanging, res.Bound.Seconds)

	s0, err := fakeStats(info.StatsURL)
	if err != nil {
		return res, err
	}
	exp, base, err := startExporter(bins, dir, info.ConfigFile, o.exporterEnv)
	if err != nil {
		return res, err
	}
	defer exp.stop()
	limit := time.Duration(10*res.Bound.Seconds*float64(time.Second)) + 2*time.Minute

	// The cold cycle starts with the process.
	if err := waitReady(ctx, base, exp, limit); err != nil {
		return res, fmt.Errorf("cold cycle: %w", err)
	}
	cold, err := seriesAt(base)
	if err != nil {
		return res, fmt.Errorf("cold cycle: %w", err)
	}
	res.ColdCycle = cold["cks_drift_cycle_duration_seconds"]
	res.NotifySeconds = cold["cks_drift_notify_duration_seconds"]
	res.ColdCPUSeconds = cpuSeconds(exp.cmd.Process.Pid)
	res.PeakAfterColdKiB, _ = world.Memory(exp.cmd.Process.Pid)
	s1, err := fakeStats(info.StatsURL)
	if err != nil {
		return res, err
	}
	res.ColdAPI, res.ColdAPITotal = diffCalls(s1.API, s0.API)
	res.ColdNotifyCalls, res.ColdNotifyTotal = notifierCalls(res.ColdAPI)
	res.NotifyBound = notifierBound(o, res.ColdNotifyCalls)
	logf("   cold cycle %.2f s, %d API calls (%d of the notifier, in %.2f s; its bound %.2f s)",
		res.ColdCycle, res.ColdAPITotal, res.ColdNotifyTotal, res.NotifySeconds, res.NotifyBound.Seconds)

	var idle []float64
	for range o.idleRequests {
		_, d, err := scrape(base)
		if err != nil {
			return res, err
		}
		idle = append(idle, ms(d))
	}
	res.IdleLatency = summarise(idle)
	res.PeakAfterIdleKiB, _ = world.Memory(exp.cmd.Process.Pid)

	// The warm cycle, with /metrics scraped at a steady pace while it runs.
	cpu0 := cpuSeconds(exp.cmd.Process.Pid)
	read0, written0 := ioBytes(exp.cmd.Process.Pid)
	started := time.Now()
	if err := post(base + "/-/check"); err != nil {
		return res, err
	}
	pace := time.Duration(0.85 * res.ColdCycle / float64(max(o.metricsRequests, 1)) * float64(time.Second))
	pace = max(pace, 5*time.Millisecond)
	var during []float64
	var last metrics
	for len(during) < o.metricsRequests && time.Since(started) < limit {
		next := time.Now().Add(pace)
		m, d, err := scrape(base)
		if err != nil {
			return res, err
		}
		last = m
		if m.cycles() >= 2 {
			break // published: this answer was not served during the cycle
		}
		during = append(during, ms(d))
		res.CycleSamples = append(res.CycleSamples, [2]float64{math.Round(time.Since(started).Seconds()*1000) / 1000, math.Round(ms(d)*100) / 100})
		if err := sleepCtx(ctx, time.Until(next)); err != nil {
			return res, err
		}
	}
	for !(last.cycles() >= 2) {
		if time.Since(started) > limit {
			return res, fmt.Errorf("warm cycle: not finished after %s", limit)
		}
		if err := exp.alive(); err != nil {
			return res, err
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return res, err
		}
		if last, _, err = scrape(base); err != nil {
			return res, err
		}
	}
	res.WarmWall = time.Since(started).Seconds()
	res.WarmCPUSeconds = cpuSeconds(exp.cmd.Process.Pid) - cpu0
	read1, written1 := ioBytes(exp.cmd.Process.Pid)
	res.WarmRead, res.WarmWritten = read1-read0, written1-written0
	res.CycleLatency = summarise(during)
	warm, err := seriesAt(base)
	if err != nil {
		return res, fmt.Errorf("warm cycle: %w", err)
	}
	res.WarmCycle = warm["cks_drift_cycle_duration_seconds"]
	if warm["cks_drift_up"] != 1 {
		return res, errors.New("warm cycle: cks_drift_up is not 1 (the inventory could not be read)")
	}
	s2, err := fakeStats(info.StatsURL)
	if err != nil {
		return res, err
	}
	res.WarmAPI, res.WarmAPITotal = diffCalls(s2.API, s1.API)
	_, res.WarmNotifyTotal = notifierCalls(res.WarmAPI)
	res.WarmAPIBytes = s2.APIBytes - s1.APIBytes
	res.WarmSSH = world.SSHStats{Connections: s2.SSH.Connections - s1.SSH.Connections, Sessions: s2.SSH.Sessions - s1.SSH.Sessions,
		Commands: s2.SSH.Commands - s1.SSH.Commands}
	res.Series, res.MetricsBytes, res.MetricsWire = len(warm), len(last.body), last.wire // the same cycle: the loop ran no other
	res.Unreachable = count(warm, "cks_drift_kubectl_reachable", 0)
	res.Findings = count(warm, "cks_drift_finding", 1)
	res.FindingsByKind = findingsByKind(warm)
	res.ListMeanHealthy = healthyListingMean(cold, warm, o.sshTimeout.Seconds())
	if err := sameFindings(res.FindingsByKind, res.Counts.Findings); err != nil {
		return res, fmt.Errorf("warm cycle: %w", err)
	}
	res.PeakRSSKiB, res.EndRSSKiB = world.Memory(exp.cmd.Process.Pid)
	logf("   warm cycle %.2f s (%.1f CPU s), %d API calls, %d SSH connections, %d sessions; peak RSS %.1f MiB; /metrics p99 %.1f ms idle, %.1f ms during the cycle (n=%d); %d series",
		res.WarmCycle, res.WarmCPUSeconds, res.WarmAPITotal, res.WarmSSH.Connections, res.WarmSSH.Sessions, mib(res.PeakRSSKiB),
		res.IdleLatency.P99, res.CycleLatency.P99, res.CycleLatency.N, res.Series)
	exp.stop()

	if !withSeq {
		return res, nil
	}
	logf("   one-at-a-time check (sample of up to %d clusters)", o.seqSample)
	seq, err := runSequential(ctx, o, bins, dir)
	if err != nil {
		return res, fmt.Errorf("one-at-a-time check: %w", err)
	}
	res.Seq = seq
	logf("   one-at-a-time: %.1f s for %d clusters (%d of them hanging): %.0f s for the world%s",
		seq.MeasuredSeconds, seq.SampledHealthy+seq.SampledHanging, seq.SampledHanging, seq.WorldSeconds, map[bool]string{true: " (extrapolated)", false: ""}[seq.Extrapolated])

	if s, err := fakeStats(info.StatsURL); err == nil {
		res.FakePeakKiB = s.VmHWMKiB
	}
	return res, nil
}

// process is a child process with its log file.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

func start(name, logFile string, env []string, bin string, args ...string) (*process, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1), log: f}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// alive reports an error once the process has exited.
func (p *process) alive() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited: %v (log %s)", p.name, err, p.log.Name())
	default:
		return nil
	}
}

// stop ends the process with SIGTERM, then SIGKILL after 15 s; it may be called twice.
func (p *process) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	if p.alive() == nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-p.done:
			p.done <- err
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
	_ = p.log.Close()
}

func startFake(ctx context.Context, o options, bins binaries, dir string, n int) (*process, world.Info, error) {
	var info world.Info
	_ = os.Remove(filepath.Join(dir, "world.json"))
	_ = os.Remove(filepath.Join(dir, "state.db"))
	p, err := start("cks-drift-benchfake", filepath.Join(dir, "benchfake.log"), nil, bins.fake,
		"-clusters", strconv.Itoa(n), "-strays", strconv.Itoa(o.strays),
		"-latency", o.latency.String(), "-handshake", o.handshake.String(), "-hang", fmt.Sprint(o.hang), "-projects", fmt.Sprint(o.projects),
		"-drift", fmt.Sprint(o.drift), "-notifier-concurrency", strconv.Itoa(o.notifierConcurrency),
		"-concurrency", strconv.Itoa(o.concurrency), "-ssh-timeout", o.sshTimeout.String(), "-page-size", strconv.Itoa(o.pageSize),
		"-include-projects="+strconv.FormatBool(o.includeProjects), "-host-key-policy", o.hostKeyPolicy, "-out", dir)
	if err != nil {
		return nil, info, err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		raw, err := os.ReadFile(filepath.Join(dir, "world.json"))
		if err == nil {
			if err := json.Unmarshal(raw, &info); err != nil {
				p.stop()
				return nil, info, err
			}
			return p, info, nil
		}
		if err := p.alive(); err != nil {
			return nil, info, err
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, info, errors.New("the simulated cloud did not start within 3 minutes")
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			p.stop()
			return nil, info, err
		}
	}
}

func startExporter(bins binaries, dir, config string, env []string) (*process, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := l.Addr().String()
	_ = l.Close()
	p, err := start("cks-drift-exporter", filepath.Join(dir, "exporter.log"), env, bins.exporter,
		"--config.file="+config, "--web.listen-address="+addr, "--web.enable-lifecycle", "--log.level=info")
	return p, "http://" + addr, err
}

// waitReady polls /-/ready until the first cycle has finished.
func waitReady(ctx context.Context, base string, p *process, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := p.alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s", limit)
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// metrics is a /metrics answer, inflated.
type metrics struct {
	body []byte
	wire int // bytes on the wire (gzip)
}

// seriesAt GETs /metrics in the text format (not timed) and reads it with prometheus/common's
// text parser: every sample as "name{labels}" -> value. The timed scrapes ask for OpenMetrics,
// which the text parser cannot read: there a counter's family drops "_total", so the Go
// collector's go_memstats_alloc_bytes_total and go_memstats_alloc_bytes share a family name.
func seriesAt(base string) (map[string]float64, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return promtext.Samples(string(raw))
}

// cycles returns the value of cks_drift_cycles_total, or NaN. It finds the one line instead of
// parsing the answer: expfmt's text parser takes 1.8 s for 90,000 series (about the answer at
// 10,000 clusters) on a loaded two-core machine, and the paced scrapes during the warm cycle
// would take that CPU from the cycle they measure.
func (m metrics) cycles() float64 {
	const name = "cks_drift_cycles_total "
	for rest := m.body; len(rest) > 0; {
		i := bytes.Index(rest, []byte(name))
		if i < 0 {
			break
		}
		if i == 0 || rest[i-1] == '\n' {
			line := rest[i+len(name):]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if f := strings.Fields(string(line)); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					return v
				}
			}
		}
		rest = rest[i+len(name):]
	}
	return math.NaN()
}

// healthyListingMean is the mean time of the warm cycle's node listings that ended before the
// timeout, from the histogram's difference between the two cycles: the sum less the listings
// that reached the timeout, counted at the timeout (a lower estimate of their share).
func healthyListingMean(cold, warm map[string]float64, timeout float64) float64 {
	const h = "cks_drift_node_list_duration_seconds"
	d := func(k string) float64 { return warm[k] - cold[k] }
	n := d(h + "_count")
	fast := d(fmt.Sprintf(`%s_bucket{le="%s"}`, h, strconv.FormatFloat(timeout/2, 'g', -1, 64)))
	if fast <= 0 || n <= 0 {
		return 0
	}
	return (d(h+"_sum") - (n-fast)*timeout) / fast
}

// findingsByKind counts the cks_drift_finding series by their kind label.
func findingsByKind(series map[string]float64) map[string]int {
	out := make(map[string]int)
	for k, v := range series {
		if v != 1 || !strings.HasPrefix(k, "cks_drift_finding{") {
			continue
		}
		if _, rest, ok := strings.Cut(k, `kind="`); ok {
			kind, _, _ := strings.Cut(rest, `"`)
			out[kind]++
		}
	}
	return out
}

// sameFindings compares the exporter's findings with the world's drift: a miss or a false
// finding at scale fails the run.
func sameFindings(got, want map[string]int) error {
	var diff []string
	for _, k := range world.DriftKinds {
		if got[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s: %d, want %d", k, got[k], want[k]))
		}
	}
	for k, n := range got {
		if !slices.Contains(world.DriftKinds, k) {
			diff = append(diff, fmt.Sprintf("%s: %d, want 0", k, n))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("the exporter's findings are not the world's drift: %s", strings.Join(diff, "; "))
	}
	return nil
}

// count counts the samples of the family name whose value is v.
func count(series map[string]float64, name string, v float64) int {
	n := 0
	for k, x := range series {
		if x == v && (k == name || strings.HasPrefix(k, name+"{")) {
			n++
		}
	}
	return n
}

// promAccept is the Accept header of Prometheus 2 (text formats): OpenMetrics first.
const promAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

var scrapeClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}

// scrape GETs /metrics as Prometheus does (OpenMetrics text, gzip) and returns the answer and the
// time to its last byte on the wire; inflating it is not timed.
func scrape(base string) (metrics, time.Duration, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return metrics{}, 0, err
	}
	req.Header.Set("Accept", promAccept)
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return metrics{}, 0, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return metrics{}, d, err
	}
	if resp.StatusCode != http.StatusOK {
		return metrics{}, d, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	m := metrics{body: raw, wire: len(raw)}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return m, d, err
		}
		if m.body, err = io.ReadAll(zr); err != nil {
			return m, d, err
		}
	}
	return m, d, nil
}

func post(u string) error {
	resp, err := http.Post(u, "text/plain", nil)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST %s: %s %s", u, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func fakeStats(u string) (world.Stats, error) {
	var s world.Stats
	resp, err := http.Get(u)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

func diffCalls(after, before map[string]int) (map[string]int, int) {
	out := make(map[string]int)
	total := 0
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
			total += d
		}
	}
	return out, total
}

// cpuSeconds is the user + system CPU time of a process, from /proc/PID/stat.
func cpuSeconds(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// ioBytes are the bytes a process read and wrote through system calls (sockets included), from
// /proc/PID/io.
func ioBytes(pid int) (read, written int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		k, v, _ := strings.Cut(l, ":")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "rchar":
			read = n
		case "wchar":
			written = n
		}
	}
	return read, written
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(kib int64) float64 { return float64(kib) / 1024 }
