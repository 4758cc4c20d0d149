package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/procstat"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
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
	// FakeCPUSeconds is the simulated cloud's CPU over the warm cycle (its API answers and its
	// control nodes' SSH servers): on a shared machine it competes with the exporter's.
	FakeCPUSeconds float64 `json:"fake_cpu_seconds_warm_cycle"`
	// WarmAPISeconds is the time the warm cycle's API requests took, one after the other, from
	// sending to the end of the answer (cks_drift_cloudstack_request_duration_seconds), against
	// the bound's pages × latency: what the fake and the transfer add.
	WarmAPISeconds float64 `json:"api_request_seconds_warm_cycle"`

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
	prof, profEnv, err := newProfiler(o.profile, n, o.concurrency)
	if err != nil {
		return res, err
	}
	exp, base, err := startExporter(bins, dir, info.ConfigFile, append(profEnv, o.exporterEnv...))
	if err != nil {
		return res, err
	}
	defer exp.stop()
	limit := time.Duration(10*res.Bound.ColdSeconds*float64(time.Second)) + 2*time.Minute

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
	res.ColdCPUSeconds = procstat.CPUSeconds(exp.cmd.Process.Pid)
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
	cpu0, fakeCPU0 := procstat.CPUSeconds(exp.cmd.Process.Pid), procstat.CPUSeconds(fake.cmd.Process.Pid)
	read0, written0 := procstat.IOBytes(exp.cmd.Process.Pid)
	started := time.Now()
	prof.startCPU(ctx)
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
		if err := prof.sawHeap(ctx, m); err != nil {
			return res, err
		}
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
	res.WarmCPUSeconds = procstat.CPUSeconds(exp.cmd.Process.Pid) - cpu0
	res.FakeCPUSeconds = procstat.CPUSeconds(fake.cmd.Process.Pid) - fakeCPU0
	if err := prof.stopCPU(); err != nil {
		return res, err
	}
	read1, written1 := procstat.IOBytes(exp.cmd.Process.Pid)
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
	res.WarmAPISeconds = sumGrowth(cold, warm, "cks_drift_cloudstack_request_duration_seconds_sum{")
	if err := sameFindings(res.FindingsByKind, res.Counts.Findings); err != nil {
		return res, fmt.Errorf("warm cycle: %w", err)
	}
	res.PeakRSSKiB, res.EndRSSKiB = world.Memory(exp.cmd.Process.Pid)
	if err := prof.afterCycle(ctx); err != nil {
		return res, err
	}
	logf("   warm cycle %.2f s (%.1f CPU s; the fake's %.1f), %d API calls in %.1f s, %d SSH connections, %d sessions; peak RSS %.1f MiB; /metrics p99 %.1f ms idle, %.1f ms during the cycle (n=%d); %d series",
		res.WarmCycle, res.WarmCPUSeconds, res.FakeCPUSeconds, res.WarmAPITotal, res.WarmAPISeconds, res.WarmSSH.Connections, res.WarmSSH.Sessions, mib(res.PeakRSSKiB),
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
