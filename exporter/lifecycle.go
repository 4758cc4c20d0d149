package exporter

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// checkEvery is the least time between two cycles asked for with POST /-/check: each costs API
// calls and an SSH session to every control node.
const checkEvery = 30 * time.Second

// Each reload logs its outcome in one line at once, at most reloadLogBurst lines per
// reloadLogEvery: a client reloading in a loop must not fill the log. Past that, the reloads of
// the rest of the minute are confirmed together, in one line at its end.
const (
	reloadLogEvery = time.Minute
	reloadLogBurst = 10
)

// lifecycle guards POST /-/reload and POST /-/check: both are refused unless the operator gave
// --web.enable-lifecycle, and /-/check at most once per checkEvery.
type lifecycle struct {
	enabled bool
	now     func() time.Time
	every   time.Duration // checkEvery; 0 in tests that trigger cycles back to back
	refused *prometheus.CounterVec

	mu        sync.Mutex
	lastCheck time.Time
}

func newLifecycle(enabled bool, now func() time.Time, refused *prometheus.CounterVec) *lifecycle {
	return &lifecycle{enabled: enabled, now: now, every: checkEvery, refused: refused}
}

// newRefusedCounter counts the refused lifecycle requests, every label pair from zero.
func newRefusedCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cks_drift_lifecycle_requests_refused_total",
		Help: "POST /-/reload and /-/check requests refused, by endpoint and reason (disabled: no --web.enable-lifecycle; rate_limited: a cycle was asked for less than 30 s before).",
	}, []string{"endpoint", "reason"})
	for _, ep := range []string{"reload", "check"} {
		c.WithLabelValues(ep, "disabled")
	}
	c.WithLabelValues("check", "rate_limited")
	return c
}

// allow answers 403 and reports false when the lifecycle endpoints are off.
func (l *lifecycle) allow(w http.ResponseWriter, endpoint string) bool {
	if l.enabled {
		return true
	}
	l.refused.WithLabelValues(endpoint, "disabled").Inc()
	http.Error(w, "Lifecycle endpoints are off: start the exporter with --web.enable-lifecycle", http.StatusForbidden)
	return false
}

// allowCheck answers 429 and reports false when the last cycle asked for is less than
// l.every old; otherwise it records this one.
func (l *lifecycle) allowCheck(w http.ResponseWriter) bool {
	l.mu.Lock()
	now := l.now()
	wait := l.lastCheck.Add(l.every).Sub(now)
	if !l.lastCheck.IsZero() && wait > 0 {
		l.mu.Unlock()
		l.refused.WithLabelValues("check", "rate_limited").Inc()
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		http.Error(w, "A check cycle was asked for less than "+l.every.String()+" ago; try again later", http.StatusTooManyRequests)
		return false
	}
	l.lastCheck = now
	l.mu.Unlock()
	return true
}

// reloadLog confirms every reload in the log: each in a line of its own, at once, unless
// reloadLogBurst lines were logged in the last reloadLogEvery; then the reloads are held and
// coalesced into one line when the minute ends (or the exporter stops), with the last one's
// outcome and how many reloads, and how many failed reloads, it confirms. Only the loop calls it,
// and it takes due from the loop's select.
type reloadLog struct {
	logger *slog.Logger
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time // time.After; tests decide when the held line is due

	windowStart time.Time // the start of the minute the burst is counted in
	logged      int       // lines logged since windowStart
	held        int       // reloads not logged yet
	heldFailed  int       // how many of them failed
	last        reloadOutcome
	due         <-chan time.Time // when the held reloads are logged; nil while none are held
}

// reloadOutcome is one reload's line: its level, message and attributes.
type reloadOutcome struct {
	level slog.Level
	msg   string
	args  []any
}

func newReloadLog(logger *slog.Logger, now func() time.Time) *reloadLog {
	return &reloadLog{logger: logger, now: now, after: time.After}
}

func (r *reloadLog) log(level slog.Level, msg string, args ...any) {
	now := r.now()
	if r.held > 0 && now.Sub(r.windowStart) >= reloadLogEvery {
		r.flush() // the minute is over; its line was not due yet
	}
	if now.Sub(r.windowStart) >= reloadLogEvery {
		r.windowStart, r.logged = now, 0
	}
	if r.held == 0 && r.logged < reloadLogBurst {
		r.logged++
		r.logger.Log(context.Background(), level, msg, args...)
		return
	}
	r.held++
	if level >= slog.LevelError {
		r.heldFailed++
	}
	r.last = reloadOutcome{level: level, msg: msg, args: args}
	if r.due == nil {
		r.due = r.after(r.windowStart.Add(reloadLogEvery).Sub(now))
	}
}

// flush logs the held reloads in one line, if any, and starts a new minute with it.
func (r *reloadLog) flush() {
	r.due = nil
	if r.held == 0 {
		return
	}
	level := r.last.level
	if r.heldFailed > 0 {
		level = max(level, slog.LevelWarn)
	}
	r.logger.Log(context.Background(), level, r.last.msg, append(r.last.args, "reloads", r.held, "failed_reloads", r.heldFailed)...)
	r.held, r.heldFailed, r.last = 0, 0, reloadOutcome{}
	r.windowStart, r.logged = r.now(), 1
}
