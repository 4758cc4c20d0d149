package events

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// MaxBody bounds a delivery: an action event is well under a kilobyte.
const MaxBody = 1 << 20

// The headers of a delivery (WebhookDeliveryThread at 4.20.0.0).
const (
	headerEventID   = "X-CS-Event-ID"
	headerSignature = "X-CS-Signature"
)

// maxEventID bounds the id a delivery names: CloudStack's is a uuid.
const maxEventID = 64

// Webhook serves CloudStack's webhook deliveries. It answers at once: 401 to a delivery whose
// signature is missing or wrong (and does nothing else), 413 to one over MaxBody, and 200 to every
// other, also to an event it does not use, because CloudStack counts only 200 as delivered and
// tries again, back to back, otherwise. What the event starts happens after the answer, in
// Deliver.
type Webhook struct {
	// Secret returns the webhook's secret key as configured now; empty: the endpoint is off (404).
	Secret func() []byte
	// Seen holds the ids already used.
	Seen *Seen
	// Deliver takes a new, signed event; it must not block.
	Deliver func(Event)
	Metrics *Metrics
	Logger  *slog.Logger
	Now     func() time.Time
}

func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secret := h.Secret()
	if len(secret) == 0 {
		http.Error(w, "CloudStack's webhook is off: events.webhook.enabled is false", http.StatusNotFound)
		return
	}
	received := h.Now()
	body, err := readBody(w, r)
	if err != nil {
		h.Metrics.Count(SourceWebhook, Rejected)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "Delivery larger than 1 MiB", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "Delivery unreadable", http.StatusBadRequest)
		return
	}
	if !Verify(secret, body, r.Header.Get(headerSignature)) {
		h.Metrics.Count(SourceWebhook, Rejected)
		h.Logger.Debug("Refused a CloudStack webhook delivery: its X-CS-Signature is missing or wrong", "remote", r.RemoteAddr)
		http.Error(w, "Unauthorized: X-CS-Signature is missing or wrong", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get(headerEventID)
	if len(id) > maxEventID {
		id = id[:maxEventID]
	}
	if id != "" && !h.Seen.First(id) {
		h.Metrics.Count(SourceWebhook, Duplicate)
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusOK)
	e, err := Parse(body)
	if err != nil {
		h.Metrics.Count(SourceWebhook, Ignored)
		h.Logger.Debug("A signed CloudStack webhook delivery is no action event", "err", err)
		return
	}
	if IsUUID(id) {
		e.ID = id
	}
	e.Source, e.Received = SourceWebhook, received
	h.Deliver(e)
}

// readBody reads at most MaxBody bytes of the request's body; a declared length over it is
// refused before anything is read.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxBody {
		return nil, &http.MaxBytesError{Limit: MaxBody}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
}
