package cloudstacktest

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// The webhook plugin's commands (4.20.0.0 on, apache/cloudstack#8674) and listCapabilities, which
// says the release. What they answer follows, at 4.20.0.0 (2fe3fcef7c), plugins/event-bus/webhook/
// src/main/java/org/apache/cloudstack/mom/webhook/: api/response/WebhookResponse.java and
// WebhookDeliveryResponse.java for the fields, WebhookApiServiceImpl.java for the object names
// ("webhook", "webhookdelivery"), the order (webhooks by id ascending, deliveries by id
// descending: newest first) and the filters; testdata/releases/4.20/listWebhooks.json and
// listWebhookDeliveries.json are answers of that shape (TestWebhookAnswersAsRecorded).
func init() {
	commands["listWebhooks"] = command{since: 20, run: (*Server).listWebhooks}
	commands["listWebhookDeliveries"] = command{since: 20, run: (*Server).listWebhookDeliveries}
	commands["listCapabilities"] = command{run: (*Server).listCapabilities}
}

// WebhookRecord is a webhook row (createWebhook). State is Enabled or Disabled, Scope Local,
// Domain or Global (Webhook.State and Webhook.Scope).
type WebhookRecord struct {
	ID, Name, Description string
	State, Scope          string
	PayloadURL, SecretKey string
	SSLVerification       bool
	Account, DomainID     string
	Domain                string
	Created               time.Time
}

// DeliveryRecord is a webhook_delivery row: what WebhookDeliveryThread recorded of one delivery.
// Response is the body of the last try's answer, or "Failed due to : <message>" where the try
// had no answer.
type DeliveryRecord struct {
	ID, EventID, EventType, WebhookID string
	Headers, Payload, Response        string
	Success                           bool
	Start, End                        time.Time
}

// AddWebhook stores a copy of h and returns the stored row; an empty ID gets a fresh uuid, an
// empty State Enabled and an empty Scope Global.
func (w *World) AddWebhook(h WebhookRecord) *WebhookRecord {
	if h.ID == "" {
		h.ID = w.newUUID()
	}
	h.State = cmpOr(h.State, "Enabled")
	h.Scope = cmpOr(h.Scope, "Global")
	if h.Created.IsZero() {
		h.Created = time.Date(2024, 6, 5, 7, 51, 22, 0, time.UTC)
	}
	w.Webhooks = append(w.Webhooks, &h)
	return &h
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// DeliverEvent delivers a to every Enabled Global webhook of the world as WebhookServiceImpl
// .getDeliveryJobs does (Local and Domain webhooks, which see one account's or domain's events,
// are left out), outside the server's lock, and records each delivery as CloudStack does.
func (s *Server) DeliverEvent(ctx context.Context, a ActionEvent) []Delivery {
	var hooks []WebhookRecord
	s.Read(func(w *World) {
		for _, h := range w.Webhooks {
			if h.State == "Enabled" && h.Scope == "Global" {
				hooks = append(hooks, *h)
			}
		}
	})
	var out []Delivery
	for _, h := range hooks {
		start := time.Now()
		d := Webhook{PayloadURL: h.PayloadURL, SecretKey: h.SecretKey}.Deliver(ctx, a)
		end := time.Now()
		s.Update(func(w *World) {
			w.WebhookDeliveries = append(w.WebhookDeliveries, &DeliveryRecord{ID: w.newUUID(), EventID: a.UUID, EventType: a.Type,
				WebhookID: h.ID, Payload: string(a.Payload()), Response: d.Response, Success: d.Success, Start: start, End: end,
				Headers: fmt.Sprintf("X-CS-Event-ID: %s\nX-CS-Event: %s\nUser-Agent: CS-Hookshot/%s", a.UUID, a.Type, a.AccountUUID)})
		})
		out = append(out, d)
	}
	return out
}

// webhookJSON and deliveryJSON are WebhookResponse and WebhookDeliveryResponse at 4.20.0.0.
type webhookJSON struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Description     string `json:"description,omitempty"`
	State           string `json:"state"`
	DomainID        string `json:"domainid"`
	Domain          string `json:"domain"`
	DomainPath      string `json:"domainpath"`
	Account         string `json:"account"`
	PayloadURL      string `json:"payloadurl"`
	SecretKey       string `json:"secretkey,omitempty"`
	SSLVerification bool   `json:"sslverification"`
	Scope           string `json:"scope"`
	Created         string `json:"created"`
}

type deliveryJSON struct {
	ID                   string `json:"id"`
	EventID              string `json:"eventid"`
	EventType            string `json:"eventtype"`
	WebhookID            string `json:"webhookid"`
	WebhookName          string `json:"webhookname"`
	ManagementServerID   string `json:"managementserverid"`
	ManagementServerName string `json:"managementservername"`
	Headers              string `json:"headers"`
	Payload              string `json:"payload"`
	Success              bool   `json:"success"`
	Response             string `json:"response"`
	StartDate            string `json:"startdate"`
	EndDate              string `json:"enddate"`
}

const apiTime = "2006-01-02T15:04:05-0700"

// listWebhooks filters by id, name, state and scope (an unknown scope or state is refused, as
// Webhook.Scope.valueOf fails); the fake's caller is a root admin, who sees every webhook.
func (s *Server) listWebhooks(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	if v := p.Get("scope"); v != "" && !slices.Contains([]string{"Local", "Domain", "Global"}, v) {
		return nil, paramError("Invalid scope specified")
	}
	if v := p.Get("state"); v != "" && v != "Enabled" && v != "Disabled" {
		return nil, paramError("Invalid state specified")
	}
	var hooks []*WebhookRecord
	for _, h := range s.world.Webhooks {
		switch {
		case p.Get("id") != "" && h.ID != p.Get("id"):
		case p.Get("name") != "" && h.Name != p.Get("name"):
		case p.Get("state") != "" && h.State != p.Get("state"):
		case p.Get("scope") != "" && h.Scope != p.Get("scope"):
		default:
			hooks = append(hooks, h)
		}
	}
	return listAnswerOf(r, win, "webhook", hooks, func(h *WebhookRecord) webhookJSON {
		return webhookJSON{ID: h.ID, Name: h.Name, Description: h.Description, State: h.State, DomainID: h.DomainID,
			Domain: cmpOr(h.Domain, "ROOT"), DomainPath: "ROOT", Account: cmpOr(h.Account, "admin"), PayloadURL: h.PayloadURL,
			SecretKey: h.SecretKey, SSLVerification: h.SSLVerification, Scope: h.Scope, Created: h.Created.Format(apiTime)}
	}), nil
}

// listWebhookDeliveries filters by webhookid and eventtype, newest first.
func (s *Server) listWebhookDeliveries(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	names := make(map[string]string)
	for _, h := range s.world.Webhooks {
		names[h.ID] = h.Name
	}
	if id := p.Get("webhookid"); id != "" && names[id] == "" {
		return nil, paramError("Invalid Webhook specified")
	}
	var out []*DeliveryRecord
	for _, d := range slices.Backward(s.world.WebhookDeliveries) {
		switch {
		case p.Get("webhookid") != "" && d.WebhookID != p.Get("webhookid"):
		case p.Get("eventtype") != "" && d.EventType != p.Get("eventtype"):
		default:
			out = append(out, d)
		}
	}
	return listAnswerOf(r, win, "webhookdelivery", out, func(d *DeliveryRecord) deliveryJSON {
		return deliveryJSON{ID: d.ID, EventID: d.EventID, EventType: d.EventType, WebhookID: d.WebhookID, WebhookName: names[d.WebhookID],
			ManagementServerID: "1e1f6ab4-5b5c-4d3c-9a0e-0d7c2a0f0a01", ManagementServerName: "management-server-1",
			Headers: d.Headers, Payload: d.Payload, Success: d.Success, Response: d.Response,
			StartDate: d.Start.Format(apiTime), EndDate: d.End.Format(apiTime)}
	}), nil
}

// listCapabilities answers the release as cloudstackversion (CapabilitiesResponse, object name
// "capability"): the first release of the world's line.
func (s *Server) listCapabilities(*request) (any, *apiError) {
	return map[string]any{"capability": map[string]any{
		"cloudstackversion":        fmt.Sprintf("4.%d.0.0", minor(s.world.Release)),
		"apilimitinterval":         1,
		"apilimitmax":              0,
		"allowusercreateprojects":  true,
		"kubernetesserviceenabled": true,
	}}, nil
}
