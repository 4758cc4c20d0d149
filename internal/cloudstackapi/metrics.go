package cloudstackapi

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts what the exporter costs CloudStack's API: every request sent (each page of a
// list, each write, each poll of an async job), the bytes of every answer and how long each
// request took, by command. They are counted here, where every request of the inventory, the
// notifier and the checks at start passes. It also keeps the requests slower than SlowAfter
// since the last TakeSlow, so that a stall shorter than cloudstack.timeout leaves a log line.
type Metrics struct {
	requests *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	now      func() time.Time // time.Now; tests move a clock of their own

	mu   sync.Mutex
	slow SlowRequests
}

// SlowRequests are the requests slower than the threshold since the last TakeSlow.
type SlowRequests struct {
	Count     int
	Slowest   time.Duration // the slowest one's duration
	Command   string        // and its command
	Threshold time.Duration // the slowest one's threshold (SlowAfter)
}

// slowRequest is how long a request may take before it counts as slow, with a cloudstack.timeout
// at least twice as long.
const slowRequest = 5 * time.Second

// SlowAfter is the threshold past which a request counts as slow: 5 s, or half the timeout when
// that is shorter, so that a request that nearly timed out is slow under any timeout.
func SlowAfter(timeout time.Duration) time.Duration {
	return min(slowRequest, timeout/2)
}

// durationBuckets reach from a quick answer to cloudstack.timeout's default (30 s) and past it.
var durationBuckets = []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// NewMetrics returns the counters, to be registered once (a reload's new clients share them).
func NewMetrics() *Metrics {
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "cks_drift", Name: "cloudstack_requests_total",
			Help: "Requests sent to the CloudStack API, by command: every page of a list and every write counts one.",
		}, []string{"command"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "cks_drift", Name: "cloudstack_response_bytes_total",
			Help: "Bytes of the CloudStack API's answers (their bodies as read), by command.",
		}, []string{"command"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "cks_drift", Name: "cloudstack_request_duration_seconds",
			Help:    "How long requests to the CloudStack API took, from sending to the end of the answer (or the failure), by command.",
			Buckets: durationBuckets,
		}, []string{"command"}),
		now: time.Now,
	}
}

// Describe sends the counters' descriptors.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.bytes.Describe(ch)
	m.duration.Describe(ch)
}

// Collect sends the counters.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.bytes.Collect(ch)
	m.duration.Collect(ch)
}

// maxCommand bounds the command label. The commands are the exporter's own, but a label is only
// ever made of a short word of letters.
const maxCommand = 64

// command returns the API command of a request, from its query (GET) or its form (POST, which
// the SDK uses for writes), or "unknown".
func command(r *http.Request) string {
	name := r.URL.Query().Get("command")
	if name == "" && r.Method == http.MethodPost && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			form, _ := io.ReadAll(io.LimitReader(body, 1<<20))
			_ = body.Close()
			if v, err := url.ParseQuery(string(form)); err == nil {
				name = v.Get("command")
			}
		}
	}
	if name == "" || len(name) > maxCommand || strings.IndexFunc(name, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) >= 0 {
		return "unknown"
	}
	return name
}

// count records one request of command and returns what counts the bytes of its answer.
func (m *Metrics) count(command string) prometheus.Counter {
	if m == nil {
		return nil
	}
	m.requests.WithLabelValues(command).Inc()
	return m.bytes.WithLabelValues(command)
}

// start returns when a request starts, for observe.
func (m *Metrics) start() time.Time {
	if m == nil {
		return time.Time{}
	}
	return m.now()
}

// observe records how long a request of command that started at start took, and keeps it when
// it took longer than slow.
func (m *Metrics) observe(command string, start time.Time, slow time.Duration) {
	if m == nil {
		return
	}
	d := m.now().Sub(start)
	m.duration.WithLabelValues(command).Observe(d.Seconds())
	if d <= slow {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.slow.Count++
	if d > m.slow.Slowest {
		m.slow.Slowest, m.slow.Command, m.slow.Threshold = d, command, slow
	}
}

// TakeSlow returns the slow requests since the last call and forgets them.
func (m *Metrics) TakeSlow() SlowRequests {
	if m == nil {
		return SlowRequests{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.slow
	m.slow = SlowRequests{}
	return s
}

// Init creates the series of the commands at zero, so that they are exported before a request.
func (m *Metrics) Init(commands ...string) {
	for _, c := range commands {
		m.requests.WithLabelValues(c)
		m.bytes.WithLabelValues(c)
		m.duration.WithLabelValues(c)
	}
}
