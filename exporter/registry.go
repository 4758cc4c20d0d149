package exporter

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// newLiveRegistry holds build info, the process's own metrics, the reload and webhook metrics and
// the notifier's counters: live state rather than part of a cycle. The check metrics are served from each
// snapshot by exposition.
func (e *Exporter) newLiveRegistry() *prometheus.Registry {
	e.reloadOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "cks_drift_config_last_reload_successful",
		Help: "1 if the last configuration reload succeeded, 0 if it failed and the previous configuration is still in use.",
	})
	e.reloadTime = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "cks_drift_config_last_reload_success_timestamp_seconds",
		Help: "Unix time of the last successful configuration load.",
	})
	e.reloadsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cks_drift_config_reloads_total",
		Help: "Configuration reloads by result.",
	}, []string{"result"})
	e.reloadsTotal.WithLabelValues("success")
	e.reloadsTotal.WithLabelValues("failure")

	e.webhooks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cks_drift_alertmanager_webhooks_total",
		Help: "Alertmanager webhook payloads received by the bridge, by result (accepted, invalid, too_large, unauthorized).",
	}, []string{"result"})
	for _, result := range []string{"accepted", "invalid", "too_large", "unauthorized"} {
		e.webhooks.WithLabelValues(result)
	}

	e.refused = newRefusedCounter()
	e.conns = newConnMetrics()

	if e.sshMetrics == nil {
		e.sshMetrics = ssh.NewMetrics()
	}
	if e.apiMetrics == nil {
		e.apiMetrics = cloudstackapi.NewMetrics()
	}
	r := prometheus.NewRegistry()
	r.MustRegister(
		versioncollector.NewCollector("cks_drift_exporter"),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		e.reloadOK, e.reloadTime, e.reloadsTotal, e.webhooks, e.refused,
		e.conns.open, e.conns.evicted, e.sshMetrics, e.apiMetrics,
	)
	if e.rechecks == nil {
		e.rechecks = newRechecks()
	}
	r.MustRegister(e.rechecks.count, e.rechecks.latency)
	e.eventMetrics = events.NewMetrics(r)
	e.notifierMetrics = notifier.NewMetrics(r)
	e.annotationGuard = notifier.NewAnnotationGuard(r, e.logger)
	return r
}

// gatherer gathers everything /metrics serves, from the current snapshot; for tests and
// MetricNames (a scrape uses the encoded bodies of exposition instead).
func (e *Exporter) gatherer() prometheus.Gatherer {
	checks := prometheus.NewRegistry()
	checks.MustRegister(collector.NewMetrics(e.lastSnapshot))
	return prometheus.Gatherers{checks, e.live}
}
