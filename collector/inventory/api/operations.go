package api

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// maxEventPages bounds the pages of one event look-up. Events come newest first, so the latest
// event of a cluster is on the first page unless other events match the keyword too.
const maxEventPages = 3

// eventPageSize is the page size of the event look-ups: the latest event is what is wanted.
const eventPageSize = 20

// wireEvent is the part of EventResponse the look-ups read (resourceid and resourcetype from
// 4.17.0.0, api/src/main/java/org/apache/cloudstack/api/response/EventResponse.java).
type wireEvent struct {
	ID           text `json:"id"`
	Username     text `json:"username"`
	Account      text `json:"account"`
	DomainID     text `json:"domainid"`
	Domain       text `json:"domain"`
	ProjectID    text `json:"projectid"`
	Type         text `json:"type"`
	Level        text `json:"level"`
	State        text `json:"state"`
	Description  text `json:"description"`
	ResourceID   text `json:"resourceid"`
	ResourceType text `json:"resourcetype"`
	Created      text `json:"created"`
}

// operations remembers, for the clusters in an operation state at the last look-up, when
// CloudStack recorded that the operation started (zero: no record), so that each cluster's
// events are asked for once while it stays in the state. It holds only such clusters.
type operations struct {
	mu   sync.Mutex
	seen map[string]operationSeen
}

type operationSeen struct {
	state string
	at    time.Time
}

// operationStarts sets OperationStarted of the clusters in an operation state from the latest
// event that started it (collector.OperationEvents), asked for with listEvents (newest first,
// QueryManagerImpl.searchForEventsInternal at 4.14.0.0 and 4.17.0.0): first by the event's
// resource, then, where that finds none on a release whose cluster commands name no resource, by
// keyword (lookups). A look-up that fails leaves the time unknown and is tried again at the next
// cycle: the exporter's own first sighting still counts.
func (o *operations) operationStarts(c *cs.CloudStackClient, clusters []collector.Cluster) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = o.starts(c, clusters, make(map[string]operationSeen))
}

// operationStartsOf is operationStarts for some clusters only (a re-check's): what is known of
// the others is kept.
func (o *operations) operationStartsOf(c *cs.CloudStackClient, clusters []collector.Cluster) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := make(map[string]operationSeen, len(o.seen))
	for id, seen := range o.seen {
		next[id] = seen
	}
	for i := range clusters {
		delete(next, clusters[i].ID)
	}
	o.seen = o.starts(c, clusters, next)
}

// starts sets OperationStarted of clusters and records what it found in next, which it returns.
func (o *operations) starts(c *cs.CloudStackClient, clusters []collector.Cluster, next map[string]operationSeen) map[string]operationSeen {
	for i := range clusters {
		k := &clusters[i]
		if !collector.OperationState(k.State) {
			continue
		}
		if old, ok := o.seen[k.ID]; ok && old.state == k.State {
			k.OperationStarted = old.at
			next[k.ID] = old
			continue
		}
		at, ok := latestEvent(c, *k, collector.OperationEvents[k.State])
		if !ok {
			continue
		}
		k.OperationStarted = at
		next[k.ID] = operationSeen{state: k.State, at: at}
	}
	return next
}

// eventMatch is how a look-up finds a cluster's events.
type eventMatch int

const (
	// byResource: the event's resource is the cluster (resourceid and resourcetype; every event of
	// a cluster command from 4.19.1.0, apache/cloudstack#9070: the commands' getApiResourceType is
	// KubernetesCluster, ParamProcessWorker puts the cluster of the id parameter in the call's
	// context and ActionEventUtils.getResourceDetails takes it from there for the event types
	// KubernetesServiceHelperImpl.setEventTypeEntityDetails maps to KubernetesCluster, all at
	// 4.19.1.0; 4.21's node commands name it through getApiResourceId).
	byResource eventMatch = iota
	// byKeyword: the description ends in the cluster's uuid (keyword = the uuid; the Scheduled
	// event of every release).
	byKeyword
)

// lookups are the look-ups of events of kind k, in order: by resource, and for an event
// described by uuid, by keyword where the resource finds none (a release before 4.19.1.0). The
// create's description names the internal id, which only the database knows: through the API
// it is found by its resource only.
func lookups(k collector.OperationEvent) []eventMatch {
	if k.Names == collector.NamedByUUID {
		return []eventMatch{byResource, byKeyword}
	}
	return []eventMatch{byResource}
}

// latestEvent returns the time of the latest event of the kinds that names the cluster, and false
// when a look-up failed.
func latestEvent(c *cs.CloudStackClient, cluster collector.Cluster, kinds []collector.OperationEvent) (time.Time, bool) {
	var latest time.Time
	for _, k := range kinds {
		for _, m := range lookups(k) {
			at, err := findEvent(c, cluster, k, m)
			if err != nil {
				return time.Time{}, false
			}
			if !at.IsZero() {
				if at.After(latest) {
					latest = at
				}
				break
			}
		}
	}
	return latest, true
}

// findEvent returns the time of the newest event of kind k that names the cluster as m says, or
// zero when there is none.
func findEvent(c *cs.CloudStackClient, cluster collector.Cluster, k collector.OperationEvent, m eventMatch) (time.Time, error) {
	extra := map[string]string{"type": k.Type}
	if m == byResource {
		extra["resourceid"], extra["resourcetype"] = cluster.ID, "KubernetesCluster"
	} else {
		extra["keyword"] = cluster.ID
	}
	// A look-up wants the newest such event, not every event: it reads no count (the total,
	// cloudstackapi.Unread) and ends at a short page, at the page that holds one, or at
	// maxEventPages without one. Releases before 4.17.0.0 ignore resourceid: their events carry
	// none, so nothing matches and the keyword look-up follows.
	names := func(e wireEvent) bool { return !eventTime(e, k, m, cluster).IsZero() }
	events, err := cloudstackapi.List(cloudstackapi.Listing[wireEvent, json.RawMessage]{
		What: "events", Size: eventPageSize, Count: cloudstackapi.Unread, MaxPages: maxEventPages,
		Until: func(page []wireEvent) bool { return slices.ContainsFunc(page, names) },
		Request: func(page, size int) (json.RawMessage, error) {
			return requestPage(c, "listEvents", "", page, size, extra)
		},
		Decode: func(body json.RawMessage) (int, []wireEvent, error) { return decodeList[wireEvent](body, "event") },
	})
	if err != nil {
		return time.Time{}, err
	}
	if i := slices.IndexFunc(events, names); i >= 0 { // newest first
		return eventTime(events[i], k, m, cluster), nil
	}
	return time.Time{}, nil
}

// eventTime is when e, an event of kind k, started an operation on the cluster, or zero when it is
// not such an event: another cluster's (a keyword matches type and level too), another owner's,
// or the record of an operation's end.
func eventTime(e wireEvent, k collector.OperationEvent, m eventMatch, c collector.Cluster) time.Time {
	if string(e.Type) != k.Type || !ownedBy(e, c) {
		return time.Time{}
	}
	switch string(e.State) {
	case "Scheduled", "Started", "Created", "":
	default:
		return time.Time{}
	}
	switch m {
	case byKeyword:
		if !strings.Contains(strings.ToLower(string(e.Description)), strings.ToLower(c.ID)) {
			return time.Time{}
		}
	case byResource:
		if !strings.EqualFold(string(e.ResourceID), c.ID) || string(e.ResourceType) != "KubernetesCluster" {
			return time.Time{}
		}
	}
	return cloudstackapi.ParseDate(string(e.Created))
}

// ownedBy reports whether e was recorded under the cluster's owner (collector.Cluster.OwnsEvent).
// A description carries names tenants choose (4.20 on, a cluster's name beside its uuid), so
// another tenant's cluster named like this cluster's uuid would match the keyword; and a tenant
// that asks to scale another's cluster by its uuid has a Scheduled event recorded with that
// cluster as its resource before the access check refuses the job (ApiServer.queueCommand
// records it after the parameters are translated, at 4.19.1.0). An admin's command on a tenant's
// cluster is recorded under the admin and is not used; "since" is then the exporter's first
// sighting, later than the truth, never earlier.
func ownedBy(e wireEvent, c collector.Cluster) bool {
	return c.OwnsEvent(string(e.Account), string(e.DomainID), string(e.ProjectID))
}
