package notifier

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Metrics are the notifier's own counters, kept here rather than in a snapshot: they count what
// the notifier did since the process started, whatever cycle it did it in. The one gauge is the
// length of its last pass.
type Metrics struct {
	sent               *prometheus.CounterVec
	capped             prometheus.Counter
	failures           prometheus.Counter
	annotationsCapped  prometheus.Counter
	overDay            prometheus.Counter
	firingDropped      *prometheus.CounterVec
	resolutionsIgnored prometheus.Counter
	denied             *prometheus.CounterVec
	duration           prometheus.Gauge
}

// Reasons for dropping an Alertmanager firing entry from the bridge's state.
const (
	dropGone  = "gone"  // the exporter no longer finds the finding, or its cluster is gone
	dropLimit = "limit" // the state held MaxFiring entries
)

// NewMetrics creates the counters, every series at zero, and registers them with reg (nil: not
// registered, for tests that read them directly).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cks_drift_notifications_total",
			Help: "CloudStack alerts sent for new findings since the exporter started.",
		}, []string{"kind"}),
		capped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_notifications_capped_total",
			Help: "New findings not alerted one by one because of the per-cycle alert cap, since the exporter started.",
		}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_notification_failures_total",
			Help: "CloudStack calls of the notifier that failed, since the exporter started.",
		}),
		annotationsCapped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_annotations_capped_total",
			Help: "New findings not annotated one by one because of notifier.max_annotations_per_cluster (one summary annotation names them), since the exporter started.",
		}),
		overDay: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_notifications_over_daily_budget_total",
			Help: "New findings not annotated or alerted because their cluster had used notifier.max_announcements_per_cluster_per_day in the last 24 hours (one summary annotation says so), since the exporter started.",
		}),
		firingDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cks_drift_alertmanager_firing_dropped_total",
			Help: "Firing alerts the Alertmanager bridge stopped remembering, by reason: gone (the exporter no longer finds them) or limit (its state was full).",
		}, []string{"reason"}),
		resolutionsIgnored: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_alertmanager_resolutions_ignored_total",
			Help: "Resolved drift alerts from Alertmanager that named no remembered firing alert with the same fingerprint and startsAt, so resolved nothing.",
		}),
		denied: newDeniedCounter(),
		duration: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cks_drift_notify_duration_seconds",
			Help: "Duration of the last notification pass (planning, CloudStack calls and the state write), in seconds.",
		}),
	}
	for _, k := range collector.Kinds {
		m.sent.WithLabelValues(string(k))
	}
	m.firingDropped.WithLabelValues(dropGone)
	m.firingDropped.WithLabelValues(dropLimit)
	if reg != nil {
		reg.MustRegister(m.sent, m.capped, m.failures, m.annotationsCapped, m.overDay, m.firingDropped, m.resolutionsIgnored, m.denied, m.duration)
	}
	return m
}
