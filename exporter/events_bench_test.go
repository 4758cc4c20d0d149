package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// TestWebhookLatency (opt-in: CKS_DRIFT_EVENTS_BENCH=1) delivers 1,000 signed events as
// CloudStack does, 100 a second, each about a VM of one of 20 watched clusters, and logs the
// 50th and 99th percentiles of the webhook's answer (goal: 50 ms at the 99th) and of the time from
// an event to the publication of its re-check (cks_drift_event_to_publish_seconds, goal: 5 s).
// docs/benchmarks.md has the figures. It asserts only that every delivery is answered 200.
func TestWebhookLatency(t *testing.T) {
	if os.Getenv("CKS_DRIFT_EVENTS_BENCH") != "1" {
		t.Skip("opt-in: 10 s of deliveries; set CKS_DRIFT_EVENTS_BENCH=1")
	}
	var specs []simulator.ClusterSpec
	for i := range 20 {
		specs = append(specs, simulator.ClusterSpec{Name: "c" + string(rune('a'+i)), Account: "t" + string(rune('a'+i%5))})
	}
	e, cs := startWithEvents(t, specs...)
	e.editConfig("  recheck_delay: 0s\n", "  recheck_delay: 2s\n  max_rechecks_per_minute: 100000\n")
	e.postReload()
	var evs []cloudstacktest.ActionEvent
	for i := range 1000 {
		c := cs[i%len(cs)]
		evs = append(evs, e.vmEvent("VM.REBOOT", c.VMs[i%len(c.VMs)]))
	}
	times, failed := answerTimes(context.Background(), e.hook(), evs, 100)
	if failed > 0 {
		t.Errorf("%d of %d deliveries not answered 200", failed, len(evs))
	}
	e.waitFor("the re-checks", func() bool {
		return e.metrics()[`cks_drift_events_total{result="accepted",source="webhook"}`] == float64(len(evs))
	})
	m := e.metrics()
	t.Logf("webhook answer: p50 %v, p99 %v, max %v over %d deliveries at 100/s", times[len(times)/2], times[len(times)*99/100], times[len(times)-1], len(times))
	t.Logf("re-checks %v; event to publish: count %v, sum %.1f s, <=2s %v, <=3s %v, <=5s %v, <=10s %v",
		m["cks_drift_rechecks_total"], m["cks_drift_event_to_publish_seconds_count"], m["cks_drift_event_to_publish_seconds_sum"],
		m[`cks_drift_event_to_publish_seconds_bucket{le="2"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="3"}`],
		m[`cks_drift_event_to_publish_seconds_bucket{le="5"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="10"}`])
}

// answerTimes delivers evs at rate a second with hook (one try each) and returns the answers'
// times, sorted, and how many were not answered 200.
func answerTimes(ctx context.Context, hook cloudstacktest.Webhook, evs []cloudstacktest.ActionEvent, rate int) ([]time.Duration, int) {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	out := make([]time.Duration, 0, len(evs))
	failed := 0
	hook.Tries = 1
	for _, ev := range evs {
		<-tick.C
		start := time.Now()
		if d := hook.Deliver(ctx, ev); d.Statuses[0] != http.StatusOK {
			failed++
		}
		out = append(out, time.Since(start))
	}
	slices.Sort(out)
	return out, failed
}

// TestEventLatencyAtScale (opt-in: CKS_DRIFT_EVENTS_BENCH=1; CKS_DRIFT_EVENTS_CLUSTERS clusters,
// 10,000 by default) measures, in the scale benchmark's world (test/bench/world: 3 VMs per
// cluster, twice as many VMs in no cluster, 3 % of control nodes hanging, 50 ms per API answer,
// 200 ms per SSH handshake) with the exporter at check.concurrency 64 and check.interval 2m, so
// that a sweep is nearly always running:
//   - changes (a mapped worker destroyed, one cluster at a time, one every 3 s), every other one
//     followed by its VM.DESTROY delivered by the fake CloudStack's Enabled Global webhook as
//     WebhookDeliveryThread delivers it, the others left to the sweep; for each, the time from the
//     change to the snapshot /metrics serves with its finding and to its [WARN] annotation;
//   - the API requests of the re-checks (calls scoped to one cluster or owner) per re-check;
//   - the webhook's answer times under 100 deliveries a second of events about VMs of no cluster,
//     sent for the whole measurement.
//
// docs/benchmarks.md has the figures. It asserts only that every change is found and announced.
func TestEventLatencyAtScale(t *testing.T) {
	if os.Getenv("CKS_DRIFT_EVENTS_BENCH") != "1" {
		t.Skip("opt-in: minutes of a 10,000-cluster world; set CKS_DRIFT_EVENTS_BENCH=1")
	}
	n := 10000
	if v := os.Getenv("CKS_DRIFT_EVENTS_CLUSTERS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	const changes = 30
	built := time.Now()
	w, err := world.Build(world.Spec{Clusters: n, StrayVMs: 2 * n, ProjectShare: 0.1, HangShare: 0.03,
		Latency: 50 * time.Millisecond, Handshake: 200 * time.Millisecond, DriftShare: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	d := config.Defaults()
	dir := t.TempDir()
	path, err := w.WriteFiles(dir, world.Config{Concurrency: 64, SSHTimeout: d.SSH.Timeout, PageSize: d.CloudStack.PageSize,
		IncludeProjects: true, HostKeyPolicy: string(d.SSH.HostKeyPolicy)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, cfg: path, logs: &logRecorder{}}
	interval := "2m"
	if v := os.Getenv("CKS_DRIFT_EVENTS_INTERVAL"); v != "" {
		interval = v // shorter for a quick run of a small world
	}
	e.editConfig("  interval: 1h\n", "  interval: "+interval+"\n")
	e.setConfig(e.config() + "events:\n  webhook:\n    enabled: true\n    secret_key: " + hookSecret + "\n")
	t.Logf("world of %d clusters built in %v; load: %s", n, time.Since(built).Round(time.Millisecond), loadAverage())
	start := time.Now()
	e.serve(slog.DiscardHandler, "")
	waitUntil(t, "the first cycle", 30*time.Minute, func() bool { return e.exp.lastSnapshot().Cycles >= 1 })
	first := e.exp.lastSnapshot()
	t.Logf("first cycle: %v after start (%v long)", time.Since(start).Round(time.Second), first.End.Sub(first.Start).Round(time.Second))
	w.CS.Update(func(cw *cloudstacktest.World) {
		cw.AddWebhook(cloudstacktest.WebhookRecord{Name: "cks-drift-exporter", PayloadURL: e.url + "/cloudstack/events", SecretKey: hookSecret})
	})

	// The background: 100 deliveries a second about VMs of no cluster, until the changes are found.
	var strays []string
	w.CS.Read(func(cw *cloudstacktest.World) {
		for _, vm := range cw.VMs {
			if strings.HasPrefix(vm.Name, "app-") && len(strays) < 1000 {
				strays = append(strays, vm.ID)
			}
		}
	})
	stopProfiles := profile(t, os.Getenv("CKS_DRIFT_EVENTS_PROFILE"))
	stop := make(chan struct{})
	answers := make(chan []time.Duration, 1)
	go func() {
		// Each delivery on its own goroutine, at most 5 at once: CloudStack's pool of delivery
		// threads (webhook.delivery.thread.pool.size, 5, in WebhookService at 4.20.0.0).
		hook := e.hook()
		hook.Tries = 1
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var (
			mu    sync.Mutex
			times []time.Duration
			wg    sync.WaitGroup
			slots = make(chan struct{}, 5)
		)
		for i := 0; ; i++ {
			select {
			case <-stop:
				wg.Wait()
				answers <- times
				return
			case <-tick.C:
			}
			ev := strayEvent(strays[i%len(strays)])
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				at := time.Now()
				hook.Deliver(context.Background(), ev)
				mu.Lock()
				times = append(times, time.Since(at))
				mu.Unlock()
			}()
		}
	}()

	callsBefore := len(w.CS.Calls())
	measured := destroyWorkers(t, w, changes)
	var mu sync.Mutex // guards the changes' times: the watcher polls while changes are made
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		deadline := time.Now().Add(15 * time.Minute)
		var last *collector.Snapshot
		for time.Now().Before(deadline) {
			if watchChanges(e, w, measured, &mu, &last) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for k, c := range measured {
		if k > 0 {
			time.Sleep(3 * time.Second) // the changes' pace, not a wait for a condition
		}
		mu.Lock()
		c.changed = time.Now()
		mu.Unlock()
		w.CS.Update(func(cw *cloudstacktest.World) { cw.VMs[c.vmInternal].State = "Destroyed" })
		if c.event {
			go w.CS.DeliverEvent(context.Background(), cloudstacktest.ActionEvent{UUID: newUUID(), Type: "VM.DESTROY", Status: "Completed",
				Entity: "VirtualMachine", EntityUUID: c.vmID, UserUUID: newUUID(), AccountUUID: newUUID(),
				Description: "Destroying Vm. Vm Id: " + c.vmID, Created: time.Now(), Resources: map[string]string{"VirtualMachine": c.vmID}})
		}
	}
	<-watched
	mu.Lock()
	defer mu.Unlock()
	for _, c := range measured {
		if c.found.IsZero() || c.annotated.IsZero() {
			t.Fatalf("the change of cluster %s was not found and announced within 15 minutes", c.clusterID)
		}
	}
	close(stop)
	times := <-answers
	slices.Sort(times)
	stopProfiles()

	m := e.metrics()
	rechecks := m["cks_drift_rechecks_total"]
	var scoped int
	for _, c := range w.CS.Calls()[callsBefore:] {
		if recheckCall(c) {
			scoped++
		}
	}
	for _, byEvent := range []bool{true, false} {
		var toMetrics, toAnnotation []time.Duration
		for _, c := range measured {
			if c.event == byEvent {
				toMetrics = append(toMetrics, c.found.Sub(c.changed))
				toAnnotation = append(toAnnotation, c.annotated.Sub(c.changed))
			}
		}
		how := "by the sweep alone"
		if byEvent {
			how = "with its webhook event"
		}
		t.Logf("%s: change to /metrics %s; change to annotation %s", how, percentiles(toMetrics), percentiles(toAnnotation))
	}
	t.Logf("webhook answer under 100 deliveries a second: %s over %d deliveries", percentiles(times), len(times))
	t.Logf("event to publication of its re-check: count %v, sum %.1f s, <=2s %v, <=3s %v, <=5s %v, <=10s %v",
		m["cks_drift_event_to_publish_seconds_count"], m["cks_drift_event_to_publish_seconds_sum"],
		m[`cks_drift_event_to_publish_seconds_bucket{le="2"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="3"}`],
		m[`cks_drift_event_to_publish_seconds_bucket{le="5"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="10"}`])
	t.Logf("re-checks %v, their API requests %d (%.1f per re-check); events %v accepted, %v ignored, %v over budget; cycles %d (the last %v long); load: %s",
		rechecks, scoped, float64(scoped)/max(rechecks, 1),
		m[`cks_drift_events_total{result="accepted",source="webhook"}`], m[`cks_drift_events_total{result="ignored",source="webhook"}`],
		m[`cks_drift_events_total{result="over_budget",source="webhook"}`], e.exp.lastSnapshot().Cycles,
		e.exp.lastSnapshot().End.Sub(e.exp.lastSnapshot().Start).Round(time.Second), loadAverage())
}

// scaleChange is one change of TestEventLatencyAtScale and when it was seen.
type scaleChange struct {
	clusterID, vmID, vmName   string
	vmInternal                int64
	event                     bool
	changed, found, annotated time.Time
}

// watchChanges records when each change made so far is first in the snapshot /metrics serves and first
// in a [WARN] annotation, and reports whether every change is in both.
// last is the snapshot it looked at before: the findings are looked for in a new one only, so
// that polling every 20 ms does not take the exporter's CPU on a loaded machine (scanning 10,000
// clusters each time took a quarter of the test's CPU).
func watchChanges(e *env, w *world.World, measured []*scaleChange, mu *sync.Mutex, last **collector.Snapshot) bool {
	now := time.Now()
	snap := e.exp.exposition.checks.Load().snapshot // what /metrics serves, encoded after publication
	var byID map[string]collector.ClusterStatus
	if snap != *last {
		*last = snap
		byID = make(map[string]collector.ClusterStatus, len(snap.Clusters))
		for _, s := range snap.Clusters {
			byID[s.Cluster.ID] = s
		}
	}
	var annotations []cloudstacktest.Annotation
	w.CS.Read(func(cw *cloudstacktest.World) {
		for _, a := range cw.Annotations {
			if strings.HasPrefix(a.Annotation, "[WARN] ") {
				annotations = append(annotations, *a)
			}
		}
	})
	mu.Lock()
	defer mu.Unlock()
	done := true
	for _, c := range measured {
		if c.changed.IsZero() {
			done = false
			continue
		}
		if c.found.IsZero() && byID != nil && hasFinding(byID[c.clusterID], c.vmID) {
			c.found = now
		}
		if c.annotated.IsZero() && slices.ContainsFunc(annotations, func(a cloudstacktest.Annotation) bool {
			return a.EntityID == c.clusterID && strings.Contains(a.Annotation, c.vmName)
		}) {
			c.annotated = now
		}
		done = done && !c.found.IsZero() && !c.annotated.IsZero()
	}
	return done
}

// destroyWorkers picks n clusters of distinct accounts whose control node answers, and the second
// worker of each, every other one to be followed by its event.
func destroyWorkers(t *testing.T, w *world.World, n int) []*scaleChange {
	t.Helper()
	var out []*scaleChange
	stride := max(1, len(w.Clusters)/(n+n/4)) // coprime with the world's 100 accounts: each pick another account
	for stride > 1 && (stride%2 == 0 || stride%5 == 0) {
		stride--
	}
	w.CS.Read(func(cw *cloudstacktest.World) {
		for i := 0; i < len(w.Clusters) && len(out) < n; i += stride {
			if w.Clusters[i].Hang {
				continue
			}
			c := cw.Clusters[i]
			vm := cw.VMs[c.VMMap[2]]
			if vm.State != "Running" {
				continue
			}
			out = append(out, &scaleChange{clusterID: c.ID, vmID: vm.ID, vmName: vm.Name, vmInternal: vm.InternalID, event: len(out)%2 == 0})
		}
	})
	if len(out) < n {
		t.Fatalf("only %d clusters to change", len(out))
	}
	return out
}

// statusOf returns the status of the cluster in snap, the zero status if it has none.
func statusOf(snap *collector.Snapshot, clusterID string) collector.ClusterStatus {
	for _, s := range snap.Clusters {
		if s.Cluster.ID == clusterID {
			return s
		}
	}
	return collector.ClusterStatus{}
}

// hasFinding reports whether the cluster's status has the mapped_vm_expunged finding of vmID.
func hasFinding(s collector.ClusterStatus, vmID string) bool {
	return slices.ContainsFunc(s.Findings(), func(f collector.Finding) bool { return f.VMID == vmID && f.Kind == "mapped_vm_expunged" })
}

// recheckCall reports whether a call reads one cluster or one owner, as a re-check does
// (ClusterInventory); a sweep's lists are cloud-wide.
func recheckCall(c cloudstacktest.Call) bool {
	if !strings.HasPrefix(c.Command, "list") || c.Command == "listAnnotations" || c.Command == "listAlerts" {
		return false
	}
	p := c.Params
	return p.Get("id") != "" || p.Get("account") != "" || (p.Get("projectid") != "" && p.Get("projectid") != "-1")
}

// strayEvent is a VM.REBOOT of a VM in no cluster: answered, dispatched and ignored.
func strayEvent(vmID string) cloudstacktest.ActionEvent {
	return cloudstacktest.ActionEvent{UUID: newUUID(), Type: "VM.REBOOT", Status: "Completed", Entity: "VirtualMachine", EntityUUID: vmID,
		UserUUID: newUUID(), AccountUUID: newUUID(), Description: "Rebooting Vm. Vm Id: " + vmID, Created: time.Now(),
		Resources: map[string]string{"VirtualMachine": vmID}}
}

// percentiles renders p50, p99 and max of ds.
func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	r := func(d time.Duration) time.Duration {
		if d < 10*time.Millisecond {
			return d.Round(10 * time.Microsecond)
		}
		return d.Round(10 * time.Millisecond)
	}
	return fmt.Sprintf("p50 %v, p99 %v, max %v (n=%d)", r(s[len(s)/2]), r(s[(len(s)*99)/100]), r(s[len(s)-1]), len(s))
}

// profile starts, when dir is set, a CPU profile and the block and mutex profiles of the whole
// test process (exporter, fake CloudStack and senders), written into dir when the returned
// function is called: go tool pprof -top -focus 'Webhook..ServeHTTP' dir/block.pprof shows what
// the webhook's answer waited for.
func profile(t *testing.T, dir string) func() {
	t.Helper()
	if dir == "" {
		return func() {}
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	runtime.SetMutexProfileFraction(10)
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		for _, name := range []string{"block", "mutex"} {
			f, err := os.Create(filepath.Join(dir, name+".pprof"))
			if err != nil {
				t.Fatal(err)
			}
			if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
				t.Fatal(err)
			}
			_ = f.Close()
		}
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
	}
}

// loadAverage is the machine's load average, as uptime shows it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// waitUntil polls cond every 20 ms until it holds, or fails the test after bound.
func waitUntil(t *testing.T, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
