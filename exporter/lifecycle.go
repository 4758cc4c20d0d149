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

// reloadLogEvery is how often an outcome of /-/reload or SIGHUP identical to the last one is
// logged again: a client reloading in a loop must not fill the log.
const reloadLogEvery = time.Minute

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

// reloadLog logs the outcome of each reload in one line, and an outcome identical to the last
// one at most once per reloadLogEvery; the next line logged says how many were left out. Only the
// loop calls it.
type reloadLog struct {
	logger     *slog.Logger
	now        func() time.Time
	last       string
	lastLogged time.Time
	suppressed int
}

func (r *reloadLog) log(level slog.Level, msg string, args ...any) {
	key := level.String() + "\x00" + msg + "\x00" + slog.Group("", args...).String()
	now := r.now()
	if key == r.last && now.Sub(r.lastLogged) < reloadLogEvery {
		r.suppressed++
		return
	}
	if r.suppressed > 0 {
		args = append(args, "repeats_not_logged", r.suppressed)
	}
	r.last, r.lastLogged, r.suppressed = key, now, 0
	r.logger.Log(context.Background(), level, msg, args...)
}
