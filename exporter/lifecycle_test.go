package exporter

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// fakeClock is a clock that moves only when the test says so.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newHandler builds an exporter that is not running, closed when the test ends, and its
// endpoints.
func newHandler(t *testing.T, opts Options) (*Exporter, http.Handler) {
	t.Helper()
	exp, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Close() })
	h, err := exp.handler("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return exp, h
}

// serveOnce sends one request to h and returns the recorded answer.
func serveOnce(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// TestLifecycleEndpointsOffByDefault: without --web.enable-lifecycle, POST /-/reload and POST
// /-/check answer 403, nothing is reloaded or asked of the loop, and the refusals are counted.
func TestLifecycleEndpointsOffByDefault(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("", "")
	exp, h := newHandler(t, Options{ConfigFile: e.cfg})
	for _, path := range []string{"/-/reload", "/-/check"} {
		if rec := serveOnce(h, "POST", path); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "--web.enable-lifecycle") {
			t.Errorf("POST %s without --web.enable-lifecycle: %d %q, want 403 naming the flag", path, rec.Code, rec.Body.String())
		}
	}
	if len(exp.trigger) != 0 {
		t.Error("a refused /-/check asked the loop for a cycle")
	}
	m := gatherSamples(t, exp)
	for _, ep := range []string{"reload", "check"} {
		if v := m[`cks_drift_lifecycle_requests_refused_total{endpoint="`+ep+`",reason="disabled"}`]; v != 1 {
			t.Errorf("refused %s requests: %v, want 1", ep, v)
		}
	}
	if m[`cks_drift_config_reloads_total{result="success"}`]+m[`cks_drift_config_reloads_total{result="failure"}`] != 0 {
		t.Error("a refused /-/reload reloaded")
	}
}

// TestCheckRateLimit: /-/check answers 202, then 429 (with Retry-After) until 30 s after the
// last cycle it asked for, on an injected clock.
func TestCheckRateLimit(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("", "")
	clock := &fakeClock{now: time.Date(2026, 6, 5, 20, 0, 0, 0, time.UTC)}
	exp, h := newHandler(t, Options{ConfigFile: e.cfg, Now: clock.Now, EnableLifecycle: true})
	steps := []struct {
		advance    time.Duration
		want       int
		retryAfter string
	}{
		{0, http.StatusAccepted, ""},
		{0, http.StatusTooManyRequests, "30"},
		{29 * time.Second, http.StatusTooManyRequests, "1"},
		{time.Second, http.StatusAccepted, ""}, // 30 s after the first
		{10 * time.Second, http.StatusTooManyRequests, "20"},
		{time.Hour, http.StatusAccepted, ""},
	}
	for i, s := range steps {
		clock.Add(s.advance)
		rec := serveOnce(h, "POST", "/-/check")
		if rec.Code != s.want || rec.Header().Get("Retry-After") != s.retryAfter {
			t.Fatalf("step %d (+%s): %d, Retry-After %q; want %d, %q", i, s.advance, rec.Code, rec.Header().Get("Retry-After"), s.want, s.retryAfter)
		}
		if s.want == http.StatusAccepted {
			<-exp.trigger // what the loop would take
		} else if len(exp.trigger) != 0 {
			t.Fatalf("step %d: a limited request asked the loop for a cycle", i)
		}
	}
	if v := gatherSamples(t, exp)[`cks_drift_lifecycle_requests_refused_total{endpoint="check",reason="rate_limited"}`]; v != 3 {
		t.Fatalf("rate-limited requests counted: %v, want 3", v)
	}
}

// TestFailedReloadAnswerIsGeneric: a reload that fails tells the caller only that it failed; the
// reason, with the file names, is in the log.
func TestFailedReloadAnswerIsGeneric(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	missing := filepath.Join(e.dir, "no-such-key")
	e.setConfig(replaceOnce(t, e.config(), "private_key_file: "+filepath.Join(e.dir, "id_ed25519"), "private_key_file: "+missing))
	mark := e.logs.mark()
	code, body := postBody(t, e.url+"/-/reload", "")
	if code != http.StatusInternalServerError || !strings.Contains(body, "Reload failed") {
		t.Fatalf("failed reload: %d %q, want 500", code, body)
	}
	for _, secret := range []string{e.dir, "no-such-key", "private_key_file", filepath.Base(e.cfg)} {
		if strings.Contains(body, secret) {
			t.Errorf("the answer of a failed reload names %q: %q", secret, body)
		}
	}
	if l := e.logs.since(mark, slog.LevelError); len(l) != 1 || !strings.Contains(l[0].Attrs["err"], missing) {
		t.Fatalf("the log does not give the reason: %+v", l)
	}
}

// TestReloadLoopIsBounded posts /-/reload in a loop: every reload is confirmed in the log, the
// first reloadLogBurst of a minute each in its own line at once (a second reload within a minute
// too), the rest of the minute in one line when it ends, naming how many reloads it confirms;
// and the back ends a reload replaces are closed before it answers, or, while a cycle uses them,
// as soon as it ends.
func TestReloadLoopIsBounded(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	clock := &fakeClock{now: time.Now()}
	minuteOver := make(chan time.Time)
	e.prepare = func(exp *Exporter) {
		exp.reloadLog.now = clock.Now
		exp.reloadLog.after = func(time.Duration) <-chan time.Time { return minuteOver }
	}
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	good := e.config()
	bad := replaceOnce(t, good, "private_key_file: "+filepath.Join(e.dir, "id_ed25519"), "private_key_file: "+filepath.Join(e.dir, "missing"))

	reloads := func(cfg string, n, want int) {
		t.Helper()
		e.setConfig(cfg)
		for range n {
			if code := post(t, e.url+"/-/reload"); code != want {
				t.Fatalf("reload: %d, want %d", code, want)
			}
		}
	}
	lines := func(mark int, msg string) []logLine {
		var out []logLine
		for _, l := range e.logs.since(mark, slog.LevelInfo) {
			if strings.HasPrefix(l.Msg, msg) {
				out = append(out, l)
			}
		}
		return out
	}
	mark := e.logs.mark()
	reloads(good, 2, http.StatusOK)
	if ok := lines(mark, "Configuration reloaded"); len(ok) != 2 {
		t.Fatalf("two reloads within a minute logged %d lines, want one each", len(ok))
	}
	reloads(good, 48, http.StatusOK)
	reloads(bad, 50, http.StatusInternalServerError)
	ok, failed := lines(mark, "Configuration reloaded"), lines(mark, "Could not reload")
	if len(ok) != reloadLogBurst || len(failed) != 0 {
		t.Fatalf("100 reloads in a minute logged %d success and %d failure lines at once, want %d and 0", len(ok), len(failed), reloadLogBurst)
	}
	minuteOver <- time.Now()
	e.waitFor("the line of the minute's other reloads", func() bool { return len(lines(mark, "Could not reload")) == 1 })
	if l := lines(mark, "Could not reload")[0]; l.Level != slog.LevelError || l.Attrs["reloads"] != "90" || l.Attrs["failed_reloads"] != "50" {
		t.Fatalf("the minute's other reloads: %+v, want one ERROR line confirming 90, 50 of them failed", l)
	}
	if m := e.metrics(); m[`cks_drift_config_reloads_total{result="success"}`] != 50 || m[`cks_drift_config_reloads_total{result="failure"}`] != 50 {
		t.Fatalf("reloads counted: %v", matching(m, "reloads_total"))
	}
	clock.Add(reloadLogEvery)
	mark = e.logs.mark()
	reloads(good, 1, http.StatusOK)
	if ok := lines(mark, "Configuration reloaded"); len(ok) != 1 || ok[0].Attrs["reloads"] != "" {
		t.Fatalf("a reload in the next minute: %+v, want its own line at once", ok)
	}

	// The back ends a reload replaces: closed before the answer while no cycle runs.
	e.setConfig(good)
	var closed atomic.Int32
	watchClose := func() {
		next := *e.exp.loaded.Load() // no reload runs now: nothing else swaps it
		next.src.close = func() error { closed.Add(1); return nil }
		e.exp.loaded.Store(&next)
	}
	watchClose()
	reloads(good, 1, http.StatusOK)
	if closed.Load() != 1 {
		t.Fatalf("back ends replaced while idle closed %d times before the reload answered, want 1", closed.Load())
	}

	// While a cycle runs, at the end of that cycle (not at the start of the next one).
	watchClose()
	inCycle, release := make(chan struct{}), make(chan struct{})
	var armed atomic.Bool
	armed.Store(true)
	hook := func(h handoff) {
		if h == handoffPublished && armed.CompareAndSwap(true, false) {
			close(inCycle)
			<-release
		}
	}
	e.exp.hook.Store(&hook)
	post(t, e.url+"/-/check")
	<-inCycle
	reloads(good, 1, http.StatusOK)
	if closed.Load() != 1 {
		t.Fatal("back ends closed while the cycle under way still used them")
	}
	close(release)
	e.waitFor("the back ends closed at the end of the cycle", func() bool { return closed.Load() == 2 })
}

// TestHeldReloadsConfirmedAtStop: reloads held for the end of the minute are logged when the
// exporter stops before it.
func TestHeldReloadsConfirmedAtStop(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.prepare = func(exp *Exporter) {
		exp.reloadLog.after = func(time.Duration) <-chan time.Time { return nil } // the minute never ends
	}
	e.start()
	mark := e.logs.mark()
	for range reloadLogBurst + 3 {
		e.postReload()
	}
	e.stop()
	var confirmed []string
	for _, l := range e.logs.since(mark, slog.LevelInfo) {
		if l.Msg == "Configuration reloaded" {
			confirmed = append(confirmed, l.Attrs["reloads"])
		}
	}
	if len(confirmed) != reloadLogBurst+1 || confirmed[reloadLogBurst] != "3" {
		t.Fatalf("reloads confirmed at stop: %q, want %d lines of one and one of 3", confirmed, reloadLogBurst)
	}
}

// gatherSamples gathers exp's metrics as "name{labels}" -> value.
func gatherSamples(t *testing.T, exp *Exporter) map[string]float64 {
	t.Helper()
	families, err := exp.gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return parseMetrics(t, b.String())
}
