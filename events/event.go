// Package events receives CloudStack's action events, from its webhook and its RabbitMQ event bus,
// and reads what each one names.
package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// Source says how an event reached the exporter: the value of the source label.
type Source string

// The sources of events.
const (
	SourceWebhook Source = "webhook"
	SourceAMQP    Source = "amqp"
)

// Event is one CloudStack action event as its webhook and its event bus deliver it: the JSON that
// ActionEventUtils.publishOnEventBus builds (at 4.20.0.0, server/src/main/java/com/cloud/event/
// ActionEventUtils.java), a Gson map of strings. Every field is checked and bounded: the
// description and the names come from the tenant's call.
type Event struct {
	ID       string // the event's uuid (the webhook's X-CS-Event-ID); empty from the event bus
	Type     string // "event": VM.EXPUNGE, KUBERNETES.CLUSTER.SCALE, ...
	Status   string // "status": Scheduled, Started, Completed, Created
	Entity   string // "entity": the resource type, VirtualMachine, KubernetesCluster, FirewallRule, ...
	EntityID string // "entityuuid": the resource's uuid
	Account  string // "account": the uuid of the resource's account
	User     string // "user": the uuid of the user who acted
	Project  string // "project": the project's uuid, for a project's resource
	// Description is the event's own text, one line of at most MaxDescription characters.
	Description string
	Created     time.Time // "eventDateTime"; zero when it cannot be read
	// Resources are the first-class entities of the call ("VirtualMachine": uuid, ...): a
	// VM.START of a scale names the cluster's VM here even where entity is something else.
	Resources map[string]string
	Source    Source
	Received  time.Time
}

// MaxDescription bounds the event's description as the exporter keeps and shows it.
const MaxDescription = 512

// maxResources bounds the entities kept from one event; CloudStack puts a handful in.
const maxResources = 16

var (
	uuidPattern   = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	typePattern   = regexp.MustCompile(`^[A-Z][A-Z0-9_.-]{0,63}$`)
	entityPattern = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,63}$`)
)

// eventTime is the layout of eventDateTime: SimpleDateFormat("yyyy-MM-dd HH:mm:ss Z").
const eventTime = "2006-01-02 15:04:05 -0700"

// ErrNotAnEvent says that a body is not a CloudStack action event (executeWebhookDelivery's test
// payload, for one).
var ErrNotAnEvent = errors.New("not a CloudStack action event")

// Parse reads an event's JSON. Fields that are not strings, uuids that are not uuids and
// entities past maxResources are left out; a body without an event type is ErrNotAnEvent.
func Parse(body []byte) (Event, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrNotAnEvent, err)
	}
	text := func(key string) string {
		var s string
		if json.Unmarshal(raw[key], &s) != nil {
			return ""
		}
		return s
	}
	uuid := func(key string) string {
		if s := text(key); uuidPattern.MatchString(s) {
			return s
		}
		return ""
	}
	e := Event{
		Type:        text("event"),
		Status:      safetext.Line(text("status"), 32),
		EntityID:    uuid("entityuuid"),
		Account:     uuid("account"),
		User:        uuid("user"),
		Project:     uuid("project"),
		Description: safetext.Line(text("description"), MaxDescription),
	}
	if !typePattern.MatchString(e.Type) {
		return Event{}, fmt.Errorf("%w: no event type", ErrNotAnEvent)
	}
	if s := text("entity"); entityPattern.MatchString(s) {
		e.Entity = s
	}
	if t, err := time.Parse(eventTime, text("eventDateTime")); err == nil {
		e.Created = t
	}
	for key := range raw {
		if len(e.Resources) == maxResources {
			break
		}
		if !entityPattern.MatchString(key) {
			continue // the fields above are lower case
		}
		if id := uuid(key); id != "" {
			if e.Resources == nil {
				e.Resources = make(map[string]string)
			}
			e.Resources[key] = id
		}
	}
	return e, nil
}

// IsUUID says whether s has the form of a CloudStack uuid.
func IsUUID(s string) bool { return uuidPattern.MatchString(s) }
