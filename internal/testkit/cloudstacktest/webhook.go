package cloudstacktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// ActionEvent is an action event as CloudStack publishes it to its event bus and its webhooks:
// ActionEventUtils.publishOnEventBus (4.20.0.0, server/src/main/java/com/cloud/event/
// ActionEventUtils.java) puts the event's fields and one "<Entity>": uuid per first-class entity
// of the call into a HashMap<String, String> and Gson writes it.
type ActionEvent struct {
	UUID        string // the event row's uuid: the webhook's X-CS-Event-ID
	Type        string // VM.EXPUNGE, KUBERNETES.CLUSTER.SCALE, ...
	Status      string // Scheduled, Started, Completed, Created
	Entity      string // the resource type: VirtualMachine, KubernetesCluster, ...
	EntityUUID  string
	UserUUID    string
	AccountUUID string
	ProjectUUID string // empty outside projects: then no "project" key
	Description string
	Created     time.Time
	Resources   map[string]string // "VirtualMachine": uuid, ...
}

// Payload is the event's JSON as CloudStack sends it. Gson escapes HTML's characters (<, >, &,
// = and ') as \u003c and so on; so does Payload.
func (a ActionEvent) Payload() []byte {
	m := map[string]string{
		"user": a.UserUUID, "account": a.AccountUUID, "event": a.Type, "status": a.Status,
		"entity": a.Entity, "entityuuid": a.EntityUUID, "description": a.Description,
		"eventDateTime": a.Created.Format("2006-01-02 15:04:05 -0700"),
	}
	if a.ProjectUUID != "" {
		m["project"] = a.ProjectUUID
	}
	for k, v := range a.Resources {
		m[k] = v
	}
	b, _ := json.Marshal(m) // escapes <, > and &
	s := strings.NewReplacer("=", `\u003d`, "'", `\u0027`).Replace(string(b))
	return []byte(s)
}

// Webhook posts events as CloudStack's WebhookDeliveryThread does (4.20.0.0,
// plugins/event-bus/webhook/src/main/java/org/apache/cloudstack/mom/webhook/
// WebhookDeliveryThread.java): a POST of the payload with X-CS-Event-ID, X-CS-Event,
// User-Agent CS-Hookshot/<account uuid> and, when the webhook has a secret key, X-CS-Signature,
// the Base64 of the payload's HMAC-SHA256 with it; Tries tries back to back, without backoff,
// until one is answered 200.
type Webhook struct {
	PayloadURL string
	SecretKey  string // empty: no X-CS-Signature
	Tries      int    // webhook.delivery.tries; 0 means CloudStack's default, 3
	// Timeout bounds each try (webhook.delivery.timeout); 0 means CloudStack's default, 10 s.
	Timeout time.Duration
	Client  *http.Client // nil: http.DefaultClient
}

// Delivery is what CloudStack records of a delivery: the status of each try (0 where it failed
// without an answer), whether one was answered 200, and the last try's answer: its body (at most
// 64 KiB here), or "Failed due to : <message>" without one (WebhookDeliveryThread.delivery).
type Delivery struct {
	Statuses []int
	Success  bool
	Response string
}

// Deliver delivers a.
func (w Webhook) Deliver(ctx context.Context, a ActionEvent) Delivery {
	return w.DeliverPayload(ctx, a, a.Payload())
}

// DeliverPayload delivers payload with a's headers: a forged or damaged body, in tests.
func (w Webhook) DeliverPayload(ctx context.Context, a ActionEvent, payload []byte) Delivery {
	tries, timeout, client := w.Tries, w.Timeout, w.Client
	if tries <= 0 {
		tries = 3
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if client == nil {
		client = http.DefaultClient
	}
	var d Delivery
	for range tries {
		status, response := w.try(ctx, client, timeout, a, payload)
		d.Statuses = append(d.Statuses, status)
		d.Response = response
		if status == http.StatusOK {
			d.Success = true
			break
		}
	}
	return d
}

func (w Webhook) try(ctx context.Context, client *http.Client, timeout time.Duration, a ActionEvent, payload []byte) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.PayloadURL, bytes.NewReader(payload))
	if err != nil {
		return 0, "Failed due to : " + err.Error()
	}
	req.Header.Set("Content-Type", "application/json; charset=UTF-8")
	req.Header.Set("X-CS-Event-ID", a.UUID)
	req.Header.Set("X-CS-Event", a.Type)
	req.Header.Set("User-Agent", "CS-Hookshot/"+a.AccountUUID)
	if w.SecretKey != "" {
		mac := hmac.New(sha256.New, []byte(w.SecretKey))
		mac.Write(payload)
		req.Header.Set("X-CS-Signature", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "Failed due to : " + err.Error()
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	return resp.StatusCode, string(body)
}
