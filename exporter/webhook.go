package exporter

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// maxWebhook bounds a webhook body. Alertmanager sends a group's alerts, and a drift alert is
// well under a kilobyte: a mebibyte holds more than a thousand.
const maxWebhook = 1 << 20

// serveWebhook is the Alertmanager bridge: with notifier.mode alertmanager, the drift alerts that
// Alertmanager sends are recorded and announced by the loop at once. TLS and any basic auth are
// the exporter's web configuration, like every other endpoint; on top of them the webhook, which
// makes the exporter write to CloudStack, needs its own token (webhookAuthorized).
func (e *Exporter) serveWebhook(w http.ResponseWriter, r *http.Request) {
	cfg, _ := e.current()
	if cfg.Notifier.Mode != config.NotifierAlertmanager {
		http.Error(w, "The Alertmanager bridge is off: notifier.mode is "+string(cfg.Notifier.Mode), http.StatusNotFound)
		return
	}
	if !webhookAuthorized(r, string(cfg.Notifier.WebhookToken)) {
		e.webhooks.WithLabelValues("unauthorized").Inc()
		w.Header().Set("WWW-Authenticate", `Bearer realm="cks-drift-exporter webhook"`)
		http.Error(w, "Unauthorized: the webhook needs Authorization: Bearer <notifier.webhook_token>", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhook))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			e.webhooks.WithLabelValues("too_large").Inc()
			http.Error(w, fmt.Sprintf("webhook body larger than %d bytes", maxWebhook), http.StatusRequestEntityTooLarge)
			return
		}
		e.webhooks.WithLabelValues("invalid").Inc()
		http.Error(w, "webhook body unreadable", http.StatusBadRequest)
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

// webhookAuthorized checks the request's token against the configured one in constant time. The
// token comes as "Authorization: Bearer <token>" (Alertmanager's http_config.authorization), or,
// where the web configuration's basic auth already takes the Authorization header, as the
// password of basic auth: then Alertmanager logs in with a user of its own whose password is the
// token, and a scrape credential still cannot post.
func webhookAuthorized(r *http.Request, token string) bool {
	if token == "" {
		return false // config validation requires one; never an open door
	}
	got, ok := "", false
	if _, pass, basic := r.BasicAuth(); basic {
		got, ok = pass, true
	} else if scheme, cred, found := strings.Cut(r.Header.Get("Authorization"), " "); found && strings.EqualFold(scheme, "Bearer") {
		got, ok = strings.TrimSpace(cred), true
	}
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// announceSoon asks the loop for a notification pass over the last snapshot.
func (e *Exporter) announceSoon() {
	select {
	case e.announce <- struct{}{}:
	default:
	}
}

// announcePass runs the notifier over the last snapshot without a new cycle, under the owner's
// lock as every writer of snapshots.
func (e *Exporter) announcePass(ctx context.Context) {
	e.owner.publishing.Lock()
	defer e.owner.publishing.Unlock()
	prev := e.snapshot.Load()
	if !prev.Success || !prev.Enabled {
		return
	}
	next := carry(prev)
	next.Clusters = make([]collector.ClusterStatus, len(prev.Clusters))
	for i, s := range prev.Clusters {
		next.Clusters[i] = s.CloneFindings()
	}
	e.notifier.Notify(ctx, next.Clusters)
	e.publish(next)
}
