package events

import "github.com/prometheus/client_golang/prometheus"

// Result says what became of an event: the value of the result label.
type Result string

// The results of an event. Every one is exported at zero from the start.
const (
	Accepted   Result = "accepted"    // it re-checks a cluster
	Ignored    Result = "ignored"     // it concerns nothing the exporter watches, or is no action event
	Duplicate  Result = "duplicate"   // its id was used already
	Rejected   Result = "rejected"    // a missing or wrong signature, or too large
	OverBudget Result = "over_budget" // past events.max_rechecks_per_minute: left to the next cycle
)

// Results lists every result.
var Results = []Result{Accepted, Ignored, Duplicate, Rejected, OverBudget}

// Metrics count the events by source and result. They live beside the code that counts them and
// outlive reloads.
type Metrics struct {
	events *prometheus.CounterVec
}

// NewMetrics registers the counter of events in r.
func NewMetrics(r prometheus.Registerer) *Metrics {
	m := &Metrics{events: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cks_drift_events_total",
		Help: "CloudStack events received, by source (webhook, amqp) and result (accepted, ignored, duplicate, rejected, over_budget).",
	}, []string{"source", "result"})}
	for _, s := range []Source{SourceWebhook, SourceAMQP} {
		for _, res := range Results {
			m.events.WithLabelValues(string(s), string(res))
		}
	}
	r.MustRegister(m.events)
	return m
}

// Count counts one event of source with result.
func (m *Metrics) Count(s Source, r Result) {
	m.events.WithLabelValues(string(s), string(r)).Inc()
}
