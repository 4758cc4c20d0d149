package exporter

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// webhooksSince is the release that brings CloudStack's webhooks: the cloud-mom-webhook plugin
// of apache/cloudstack#8674, whose commands say since = "4.20.0" (ListWebhooksCmd.java at
// 4.20.0.0).
const webhooksSince = "4.20.0.0"

// eventsPath is where the exporter serves CloudStack's webhook (http.go).
const eventsPath = "/cloudstack/events"

// maxDeliveries is how many of the webhook's last deliveries preflight reads.
const maxDeliveries = 20

// webhookJSON and deliveryJSON are the fields preflight reads of WebhookResponse and
// WebhookDeliveryResponse (4.20.0.0, plugins/event-bus/webhook/.../api/response/); the SDK's
// WebhookDelivery type has the webhook's fields instead of the delivery's, so both are decoded
// here. The secret key is compared, never printed.
type webhookJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	State      string `json:"state"` // Enabled or Disabled
	Scope      string `json:"scope"` // Local, Domain or Global
	PayloadURL string `json:"payloadurl"`
	SecretKey  string `json:"secretkey"`
}

type deliveryJSON struct {
	EventType string `json:"eventtype"`
	Success   bool   `json:"success"`
	// Response is what the payload URL answered to the last try, its body (the exporter's text
	// for a 401, empty for a 200), or "Failed due to : <message>" without an answer
	// (WebhookDeliveryThread.delivery).
	Response  string `json:"response"`
	StartDate string `json:"startdate"`
}

// webhook checks, with events.webhook.enabled, that CloudStack has webhooks (4.20.0.0 on), that
// an Enabled Global webhook posts to this exporter with its secret key (judgeWebhooks), and what
// its last deliveries answered (judgeDeliveries).
func (p *preflight) webhook(sdk *cs.CloudStackClient, cfg *config.Config, listen []string) {
	const what = "CloudStack webhook"
	release, err := p.release(sdk)
	if err != nil {
		p.check(what, "", cloudstackapi.Hint(err))
		return
	}
	if olderThan(release, webhooksSince) {
		p.check(what, "", fmt.Errorf("CloudStack %s has no webhooks (they arrive in %s): turn events.webhook.enabled off and consume CloudStack's RabbitMQ event bus (events.amqp) instead",
			safetext.Line(release, 32), webhooksSince))
		return
	}
	var hooks []webhookJSON
	err = listOnePage(sdk, "listWebhooks", "webhook", map[string]any{"listall": true, "scope": "Global", "pagesize": cfg.CloudStack.PageSize}, &hooks)
	if err != nil {
		p.check(what, "", cloudstackapi.Hint(err))
		return
	}
	hook, ok, err := judgeWebhooks(hooks, cfg.Events.Webhook.SecretKey, listenPorts(listen))
	p.check(what, ok, err)
	if hook == nil {
		return
	}
	var deliveries []deliveryJSON
	err = listOnePage(sdk, "listWebhookDeliveries", "webhookdelivery", map[string]any{"webhookid": hook.ID, "page": 1, "pagesize": min(maxDeliveries, cfg.CloudStack.PageSize)}, &deliveries)
	if err != nil {
		p.check("its last deliveries", "", cloudstackapi.Hint(err))
		return
	}
	ok, err = judgeDeliveries(deliveries, hook.ID)
	p.check("its last deliveries", ok, err)
}

// release reads CloudStack's release once (listCapabilities' cloudstackversion).
func (p *preflight) release(sdk *cs.CloudStackClient) (string, error) {
	if p.cloudStackVersion != "" {
		return p.cloudStackVersion, nil
	}
	var r struct {
		Capability struct {
			Version string `json:"cloudstackversion"`
		} `json:"capability"`
	}
	custom, _ := cs.NewCustomService(sdk).(*cs.CustomService)
	if err := cloudstackapi.Guard(func() error { return custom.CustomRequest("listCapabilities", &cs.CustomServiceParams{}, &r) }); err != nil {
		return "", fmt.Errorf("listCapabilities: %w", cloudstackapi.Redact(err))
	}
	if r.Capability.Version == "" {
		return "", errors.New("listCapabilities answered no cloudstackversion")
	}
	p.cloudStackVersion = r.Capability.Version
	return p.cloudStackVersion, nil
}

// olderThan reports whether CloudStack's version (4.19.1.0, 4.20.0.0-SNAPSHOT) is older than
// since, comparing the leading numbers; a version it cannot read is not older.
func olderThan(version, since string) bool {
	return slices.Compare(versionNumbers(version), versionNumbers(since)) < 0
}

func versionNumbers(v string) []int {
	var out []int
	for _, part := range strings.SplitN(v, ".", 4) {
		digits := part[:len(part)-len(strings.TrimLeft(part, "0123456789"))]
		n, err := strconv.Atoi(digits)
		if err != nil {
			return append(out, 1<<30) // unreadable: newer than any release
		}
		out = append(out, n)
	}
	return out
}

// listOnePage reads one page of a list command into items, each decoded on its own so that an odd
// item is left out rather than failing the list.
func listOnePage[T any](sdk *cs.CloudStackClient, command, key string, params map[string]any, items *[]T) error {
	p := &cs.CustomServiceParams{}
	for k, v := range params {
		p.SetParam(k, v)
	}
	var body map[string]json.RawMessage
	custom, _ := cs.NewCustomService(sdk).(*cs.CustomService)
	if err := cloudstackapi.Guard(func() error { return custom.CustomRequest(command, p, &body) }); err != nil {
		return fmt.Errorf("%s: %w", command, cloudstackapi.Redact(err))
	}
	var raw []json.RawMessage
	if b, ok := body[key]; ok && json.Unmarshal(b, &raw) != nil {
		return fmt.Errorf("%s: %s is not a list", command, key)
	}
	for _, r := range raw {
		var item T
		if json.Unmarshal(r, &item) == nil {
			*items = append(*items, item)
		}
	}
	return nil
}

// listenPorts are the TCP ports of --web.listen-address; none for vsock or systemd sockets.
func listenPorts(listen []string) []string {
	var out []string
	for _, addr := range listen {
		if _, port, err := net.SplitHostPort(addr); err == nil && !strings.HasPrefix(addr, "vsock://") {
			out = append(out, port)
		}
	}
	return out
}

// judgeWebhooks picks, of the Global webhooks, the one that posts to this exporter: its payload
// URL's path is /cloudstack/events and its port (80 or 443 where the URL names none) one the
// exporter listens on (no port is compared when the exporter listens on none it knows, as with
// systemd's sockets). The URL's host is not compared: CloudStack may reach the exporter by any
// name or address (a load balancer, NAT), which the exporter cannot know. It returns that
// webhook and the check's text when it is Enabled and signs with events.webhook.secret_key; else
// the webhook nearest to that (nil when none has the path) and what to change.
func judgeWebhooks(hooks []webhookJSON, secret config.Secret, ports []string) (*webhookJSON, string, error) {
	var best *webhookJSON
	var bestProblems []string
	global := 0
	for i := range hooks {
		h := &hooks[i]
		if h.Scope != "Global" {
			continue // CloudStack filtered by scope already; a Local webhook sees one account's events
		}
		global++
		u, err := url.Parse(h.PayloadURL)
		if err != nil || u.Path != eventsPath {
			continue
		}
		var problems []string
		if h.State != "Enabled" {
			problems = append(problems, fmt.Sprintf("it is %s: enable it (cmk update webhook id=%s state=Enabled)", safetext.Line(h.State, 16), h.ID))
		}
		if port := urlPort(u); len(ports) > 0 && !slices.Contains(ports, port) {
			problems = append(problems, fmt.Sprintf("it posts to port %s, the exporter listens on %s (--web.listen-address)", port, strings.Join(ports, ", ")))
		}
		switch {
		case h.SecretKey == "":
			problems = append(problems, "it has no secret key, so CloudStack sends its deliveries unsigned and the exporter refuses them (401): set its secretkey to events.webhook.secret_key")
		case subtle.ConstantTimeCompare([]byte(h.SecretKey), []byte(secret)) != 1:
			problems = append(problems, "its secret key is not events.webhook.secret_key, so the exporter refuses its deliveries (401): make them the same")
		}
		if best == nil || len(problems) < len(bestProblems) {
			best, bestProblems = h, problems
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("no Global webhook posts to %s (%d Global webhooks): create one, as a root admin: cmk create webhook name=cks-drift-exporter scope=Global payloadurl=https://<this exporter's address>:<port>%s secretkey=<events.webhook.secret_key>",
			eventsPath, global, eventsPath)
	}
	name := fmt.Sprintf("webhook %s (%s) posting to %s", safetext.Line(best.Name, 64), best.ID, safetext.Line(best.PayloadURL, 200))
	if len(bestProblems) > 0 {
		return best, "", fmt.Errorf("%s: %s", name, strings.Join(bestProblems, "; "))
	}
	return best, name + ": Enabled, Global, signed with events.webhook.secret_key", nil
}

// urlPort is u's port, or the scheme's.
func urlPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// judgeDeliveries says what the webhook's last deliveries (newest first) answered: a failure when
// the last one was not answered 200, with the likely cause read from what was answered.
func judgeDeliveries(ds []deliveryJSON, hookID string) (string, error) {
	if len(ds) == 0 {
		return fmt.Sprintf("none yet: CloudStack delivers each action event as it happens (cmk execute webhookdelivery webhookid=%s sends a test delivery)", hookID), nil
	}
	ok := 0
	for _, d := range ds {
		if d.Success {
			ok++
		}
	}
	last := ds[0]
	about := fmt.Sprintf("the last (%s at %s)", safetext.Line(last.EventType, 64), safetext.Line(last.StartDate, 32))
	if last.Success {
		return fmt.Sprintf("%d of the last %d answered 200, %s too", ok, len(ds), about), nil
	}
	return "", fmt.Errorf("%d of the last %d answered 200, not %s, which was answered '%s': %s", ok, len(ds), about,
		safetext.Line(last.Response, 200), deliveryHint(last.Response))
}

// deliveryHint is the likely cause of a failed delivery, read from the exporter's own answers
// (events.Webhook) and CloudStack's text for a try without an answer.
func deliveryHint(response string) string {
	switch {
	case strings.Contains(response, "X-CS-Signature"):
		return "the exporter at the payload URL refused the signature: its events.webhook.secret_key is not the webhook's secret key"
	case strings.Contains(response, "events.webhook.enabled is false"):
		return "the exporter at the payload URL has events.webhook.enabled false"
	case strings.HasPrefix(response, "Failed due to"):
		return "CloudStack's management server could not reach the payload URL: check its address, port, scheme and the firewall between them"
	default:
		return "the payload URL answered, but not as this exporter does: does it point at the exporter?"
	}
}
