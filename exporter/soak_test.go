package exporter

import (
	"math/rand"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
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
		if n := r.e.exp.lastSnapshot().Cycles; n > last {
			return n
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no cycle completed for 2 minutes after cycle %d", last)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
