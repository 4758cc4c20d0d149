package exporter

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// maxWebhook bounds a webhook body; Alertmanager sends at most a group's alerts.
const maxWebhook = 8 << 20

// serveWebhook is the Alertmanager bridge: with notifier.mode alertmanager, the drift alerts that
// Alertmanager sends are recorded and announced by the loop at once. Authentication and TLS are
// the exporter's web configuration, like every other endpoint.
func (e *Exporter) serveWebhook(w http.ResponseWriter, r *http.Request) {
	cfg, _ := e.current()
	if cfg.Notifier.Mode != config.NotifierAlertmanager {
		http.Error(w, "The Alertmanager bridge is off: notifier.mode is "+string(cfg.Notifier.Mode), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhook+1))
	if err != nil || len(body) > maxWebhook {
		e.webhooks.WithLabelValues("invalid").Inc()
		http.Error(w, "webhook body unreadable or too large", http.StatusBadRequest)
		return
	}
	var payload notifier.Webhook
	if err := json.Unmarshal(body, &payload); err != nil {
		e.webhooks.WithLabelValues("invalid").Inc()
		e.logger.Warn("Alertmanager webhook is not valid JSON", "err", err)
		http.Error(w, "webhook body is not a JSON payload: "+err.Error(), http.StatusBadRequest)
		return
	}
	e.webhooks.WithLabelValues("accepted").Inc()
	if e.notifier.Receive(payload) > 0 {
		e.announceSoon()
	}
	w.WriteHeader(http.StatusOK)
}

// announceSoon asks the loop for a notification pass over the last snapshot.
func (e *Exporter) announceSoon() {
	select {
	case e.announce <- struct{}{}:
	default:
	}
}

// announcePass runs the notifier over the last snapshot without a new cycle (the loop is the only
// writer of snapshots, so it runs there).
func (e *Exporter) announcePass(ctx context.Context) {
	prev := e.snapshot.Load()
	if !prev.Success || !prev.Enabled {
		return
	}
	next := carry(prev)
	next.Clusters = make([]collector.ClusterStatus, len(prev.Clusters))
	for i, s := range prev.Clusters {
		s.VM, s.Node = slices.Clone(s.VM), slices.Clone(s.Node)
		next.Clusters[i] = s
	}
	e.notifier.Notify(ctx, next.Clusters)
	e.publish(next)
}
