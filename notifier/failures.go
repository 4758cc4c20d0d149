package notifier

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// permissionRetry is how long the notifier waits before it tries an API again that the key's role
// may not call: that is a configuration error, which a cycle later will not have fixed.
const permissionRetry = time.Hour

// failureReason is what makes two failures of an operation the same failure: CloudStack's error
// code, or else the innermost error's text. The cluster or the alert type a call was for is
// left out, so that one broken API is logged once, not once per cluster or per finding.
func failureReason(err error) string {
	if c := cloudstackapi.Code(err); c != 0 {
		return "CloudStack error " + strconv.Itoa(c)
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

// fail logs a failing reason once per operation, not every cycle nor for every cluster. A
// permission error is a configuration error: it is logged at error level with what to change,
// counted by API, and the operation is not tried again before permissionRetry.
func (n *Notifier) fail(op string, err error) {
	reason := failureReason(err)
	if cloudstackapi.Permission(err) {
		n.paused[op] = n.now().Add(permissionRetry)
		n.metrics.denied.WithLabelValues(op, deniedReason(err)).Inc()
	}
	if n.failing[op] == reason {
		n.logger.Debug("Notifier call still failing", "op", op, "err", err)
		return
	}
	n.failing[op] = reason
	if cloudstackapi.Permission(err) {
		n.logger.Error("The API key may not make this notifier call: a configuration error, tried again in "+permissionRetry.String(),
			"op", op, "err", err)
		return
	}
	n.logger.Warn("Notifier call failed, it is retried on the next cycle", "op", op, "err", err)
}

func (n *Notifier) ok(op string) {
	delete(n.paused, op)
	if _, was := n.failing[op]; was {
		delete(n.failing, op)
		n.logger.Info("Notifier call works again", "op", op)
	}
}

// isPaused reports whether op was refused for lack of permission less than permissionRetry ago.
func (n *Notifier) isPaused(op string) bool {
	until, ok := n.paused[op]
	return ok && n.now().Before(until)
}

// The reasons of a permission error: CloudStack answers 401 (unauthorized) to some APIs a role
// lacks and 432 (forbidden) to others.
const (
	reasonUnauthorized = "unauthorized"
	reasonForbidden    = "forbidden"
)

// deniedReason is the reason label of a permission error: its error code's class.
func deniedReason(err error) string {
	if cloudstackapi.Code(err) == 401 {
		return reasonUnauthorized
	}
	return reasonForbidden
}

func newDeniedCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cks_drift_notification_permission_denied_total",
		Help: "Notifier calls CloudStack refused because the API key's role may not call the API, by API and reason (unauthorized: 401, forbidden: 432), since the exporter started.",
	}, []string{"api", "reason"})
	for _, api := range []string{"addAnnotation", "generateAlert", "archiveAlerts", "look up an earlier attempt"} {
		for _, reason := range []string{reasonUnauthorized, reasonForbidden} {
			c.WithLabelValues(api, reason)
		}
	}
	return c
}

// logCapped says, once per pass that holds findings back, how many new findings the alert cap
// kept from being alerted one by one: they were logged and annotated, and one summary alert
// names them.
func (n *Notifier) logCapped() {
	held := 0
	for _, c := range n.summary {
		held += c
	}
	n.logger.Info("The alert cap held new findings back: each is logged and annotated, and one summary alert names them",
		"held_back", held, "clusters", len(n.summary), "max_alerts_per_cycle", n.opts.MaxAlertsPerCycle)
}
