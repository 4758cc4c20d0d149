package cloudstackapi

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts what the exporter costs CloudStack's API: every request sent (each page of a
// list, each write, each poll of an async job) and the bytes of every answer, by command. They
// are counted here, where every request of the inventory, the notifier and the checks at start
// passes.
type Metrics struct {
	requests *prometheus.CounterVec
	bytes    *prometheus.CounterVec
}

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
	}
}

// Describe sends the counters' descriptors.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.bytes.Describe(ch)
}

// Collect sends the counters.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.bytes.Collect(ch)
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

// Init creates the series of the commands at zero, so that they are exported before a request.
func (m *Metrics) Init(commands ...string) {
	for _, c := range commands {
		m.requests.WithLabelValues(c)
		m.bytes.WithLabelValues(c)
	}
}
