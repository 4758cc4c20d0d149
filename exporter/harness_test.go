package exporter

import (
	"context"
	"encoding/json"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// logRecorder is a slog handler that keeps every record for assertions.
type logRecorder struct {
	mu    sync.Mutex
	lines []logLine
}

type logLine struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

func (b *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (b *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return b }
func (b *logRecorder) WithGroup(string) slog.Handler            { return b }
func (b *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l := logLine{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool { l.Attrs[a.Key] = a.Value.String(); return true })
	b.mu.Lock()
	b.lines = append(b.lines, l)
	b.mu.Unlock()
	return nil
}

// since returns the lines at level or above logged after mark.
func (b *logRecorder) since(mark int, level slog.Level) []logLine {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []logLine
	for _, l := range b.lines[mark:] {
		if l.Msg == "Listening on" || l.Msg == "TLS is disabled." { // the web server starting
			continue
		}
		if l.Msg == cycleSummaryMsg { // the runtime's own counts, asserted in cyclelog_test.go
			continue
		}
		if l.Level >= level {
			out = append(out, l)
		}
	}
	return out
}

func (b *logRecorder) mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.lines)
}

// env is a simulated cloud and an exporter watching it.
type env struct {
	t      *testing.T
	sim    *simulator.Simulator
	dir    string
	cfg    string
	logs   *logRecorder
	exp    *Exporter
	url    string
	cancel context.CancelFunc
	done   chan error
	// prepare, when set, adjusts the exporter before it runs (a clock, a limit).
	prepare func(*Exporter)
}

// newEnv starts a simulator with the given clusters; start() starts the exporter.
func newEnv(t *testing.T, specs ...simulator.ClusterSpec) (*env, []simulator.Cluster) {
	t.Helper()
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	var clusters []simulator.Cluster
	for _, s := range specs {
		c, err := sim.AddCluster(s)
		if err != nil {
			t.Fatal(err)
		}
		clusters = append(clusters, c)
	}
	return &env{t: t, sim: sim, dir: t.TempDir(), logs: &logRecorder{}}, clusters
}

// writeConfig (re)writes the exporter's configuration.
func (e *env) writeConfig(check, notifier string) {
	e.t.Helper()
	path, err := e.sim.WriteFiles(e.dir, check, notifier)
	if err != nil {
		e.t.Fatal(err)
	}
	e.cfg = path
}

// config and setConfig read and replace the configuration file written by writeConfig.
func (e *env) config() string {
	e.t.Helper()
	return string(readFile(e.t, e.cfg))
}

func (e *env) setConfig(content string) {
	e.t.Helper()
	writeFile(e.t, e.cfg, []byte(content))
}

// editConfig replaces the one occurrence of old with repl in the configuration file.
func (e *env) editConfig(old, repl string) {
	e.t.Helper()
	e.setConfig(replaceOnce(e.t, e.config(), old, repl))
}

// postReload asks the running exporter to re-read its configuration and expects it to succeed.
func (e *env) postReload() {
	e.t.Helper()
	if code := post(e.t, e.url+"/-/reload"); code != http.StatusOK {
		e.t.Fatalf("reload: %d", code)
	}
}

// start runs the exporter on 127.0.0.1:0, logging into e.logs, until the test ends or stop is
// called.
func (e *env) start() {
	e.t.Helper()
	e.serve(e.logs, "")
}

// serve is start with a chosen log handler and web configuration file ("" serves plain HTTP,
// otherwise e.url is https://).
func (e *env) serve(h slog.Handler, webConfigFile string) {
	e.t.Helper()
	exp, err := New(Options{ConfigFile: e.cfg, Logger: slog.New(h), EnableLifecycle: true})
	if err != nil {
		e.t.Fatal(err)
	}
	exp.lifecycle.every = 0 // tests ask for cycles back to back; lifecycle_test.go tests the limit
	if e.prepare != nil {
		e.prepare(exp)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	scheme := "http://"
	if webConfigFile != "" {
		scheme = "https://"
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.exp, e.url, e.cancel, e.done = exp, scheme+l.Addr().String(), cancel, make(chan error, 1)
	webCfg := &web.FlagConfig{WebListenAddresses: &[]string{l.Addr().String()}, WebSystemdSocket: new(bool), WebConfigFile: &webConfigFile}
	go func() { e.done <- exp.Run(ctx, ServeOptions{TelemetryPath: "/metrics", Web: webCfg, Listener: l}) }()
	e.t.Cleanup(e.stop)
}

// jsonLog returns a handler that writes every line at every level, with all its attributes
// resolved, as JSON into the buffer (what an operator's log shipper receives), and that also
// feeds e.logs.
func (e *env) jsonLog() (*logtest.Buffer, slog.Handler) {
	buf := &logtest.Buffer{}
	return buf, teeHandler{e.logs, slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})}
}

// stop ends the exporter and waits for it.
func (e *env) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	if err := <-e.done; err != nil {
		e.t.Errorf("Run: %v", err)
	}
	_ = e.exp.Close()
	e.cancel = nil
}

// metrics scrapes /metrics and returns the samples as "name{labels}" -> value.
func (e *env) metrics() map[string]float64 {
	e.t.Helper()
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return parseMetrics(e.t, string(body))
}

// waitFor polls until cond holds or fails the test after a bound.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	e.waitWithin(20*time.Second, what, cond)
}

// waitWithin is waitFor with a deadline of its own: d is a backstop for a condition that does
// not come, never a measure of speed.
func (e *env) waitWithin(d time.Duration, what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkNow runs n cycles asked for with POST /-/check, one after the other: each starts after
// the call, so it sees every change made before it (with a long check.interval, no other cycle
// can straddle a change).
func (e *env) checkNow(n int) {
	e.t.Helper()
	for range n {
		done := e.cycles()
		if code := post(e.t, e.url+"/-/check"); code != http.StatusAccepted {
			e.t.Fatalf("/-/check: %d", code)
		}
		e.waitFor("a cycle asked for", func() bool { return e.cycles() > done })
	}
}

// cycles returns the number of completed cycles.
func (e *env) cycles() float64 { return e.metrics()["cks_drift_cycles_total"] }

// nextCycles waits until n more cycles have completed than now: a change made before the call
// is then seen by at least n-1 whole cycles.
func (e *env) nextCycles(n int) {
	e.t.Helper()
	start := e.cycles()
	// 20 s a cycle: cycles that read hostile answers (TestHostileTenantsBesideAVictim) under the
	// race detector on a loaded machine outlasted one 20 s deadline for three of them.
	e.waitWithin(time.Duration(n)*20*time.Second, strconv.Itoa(n)+" more cycles", func() bool { return e.cycles() >= start+float64(n) })
}

// findings returns the active findings as "cluster kind vm_name".
func (e *env) findings() []string {
	var out []string
	re := regexp.MustCompile(`cluster_name="([^"]*)",kind="([^"]*)",vm_id="[^"]*",vm_name="([^"]*)"`)
	for k := range matching(e.metrics(), `^cks_drift_finding\{`) {
		m := re.FindStringSubmatch(k)
		out = append(out, m[1]+" "+m[2]+" "+m[3])
	}
	return sorted(out)
}

// writes returns the notifier's writes received by CloudStack, as "command text".
func (e *env) writes() []string {
	var out []string
	for _, c := range e.sim.CloudStack.Calls() {
		switch c.Command {
		case "addAnnotation":
			out = append(out, "addAnnotation "+c.Params.Get("annotation"))
		case "generateAlert":
			out = append(out, "generateAlert "+c.Params.Get("description"))
		case "archiveAlerts":
			out = append(out, "archiveAlerts")
		}
	}
	return out
}

// storedAlerts returns the descriptions of CloudStack's un-archived alerts.
func (e *env) storedAlerts() []string {
	var out []string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			if !a.Archived {
				out = append(out, a.Description)
			}
		}
	})
	return sorted(out)
}

// findingsReport fetches /findings, and its raw text.
func (e *env) findingsReport() (report.Report, string) {
	e.t.Helper()
	resp, err := http.Get(e.url + "/findings")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(body, &r); err != nil {
		e.t.Fatalf("/findings: %v\n%s", err, body)
	}
	return r, string(body)
}
