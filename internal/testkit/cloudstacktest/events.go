package cloudstacktest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Event is an event row (cloud.event) as CloudStack records one. For the asynchronous commands of
// a Kubernetes cluster (scale, upgrade, start, stop, delete) the API layer records a Scheduled
// event when the command is submitted (ApiServer.queueCommand calls
// ActionEventUtils.onScheduledActionEvent, 4.14.0.0 onward), typed by the command's
// getEventType and described by its getEventDescription ("Scaling Kubernetes cluster ID: <uuid>";
// the create's "Creating Kubernetes cluster. Cluster Id: <internal id>", from 4.19.1.0 "Creating
// Kubernetes cluster Id: <internal id>"). Up to 4.19.0.0 those commands name no resource, so
// ResourceID is empty for them; from 4.19.1.0 (apache/cloudstack#9070) every event of a cluster
// command, Scheduled, Started and Completed, has the cluster as its resource (OperationEvent).
// 4.21's addNodes/removeNodes commands name the cluster as their resource.
type Event struct {
	ID           string
	Type         string // KUBERNETES.CLUSTER.SCALE, ...
	State        string // Scheduled, Started, Completed, Created
	Level        string // INFO, WARN, ERROR
	Description  string
	Username     string // the user who acted; empty: the account's name
	Account      string
	DomainID     string
	Domain       string
	ProjectID    string // the owner, when the calling account is a project's
	ResourceID   string // the resource's uuid, 4.17 onward and only where the command names one
	ResourceType string
	Created      time.Time
	Archived     bool
}

// Of is e recorded under c's owner, as CloudStack records the event of a command c's owner
// called (the account that calls a command owns its event).
func (e Event) Of(c *Cluster) Event {
	e.Account, e.DomainID, e.Domain, e.ProjectID = c.Account, c.DomainID, c.Domain, c.ProjectID
	return e
}

// OperationEvent is the Scheduled event of a cluster command c's owner submitted at the time
// given, as the world's release records it: KUBERNETES.CLUSTER.SCALE, UPGRADE, START, STOP and
// DELETE describe the cluster by uuid ("Scaling Kubernetes cluster ID: <uuid>"), CREATE by
// internal id, and 4.21's NODES.ADD and NODES.REMOVE name it as their resource. From 4.19.1.0 (the
// fake's 4.20 line on) every one of them names the cluster as its resource too: the commands'
// getApiResourceType is KubernetesCluster, ParamProcessWorker puts the cluster of the id parameter
// in the call's context, and ActionEventUtils.getResourceDetails takes it from there for the event
// types KubernetesServiceHelperImpl maps to KubernetesCluster (all at 4.19.1.0, #9070).
func (w *World) OperationEvent(c *Cluster, eventType string, at time.Time) Event {
	e := Event{Type: eventType, State: "Scheduled", Created: at.UTC().Truncate(time.Second)}.Of(c)
	switch eventType {
	case "KUBERNETES.CLUSTER.CREATE":
		e.Description = fmt.Sprintf("Creating Kubernetes cluster. Cluster Id: %d", c.InternalID)
		if w.since(20) {
			e.Description = fmt.Sprintf("Creating Kubernetes cluster Id: %d", c.InternalID)
		}
	case "KUBERNETES.CLUSTER.NODES.ADD", "KUBERNETES.CLUSTER.NODES.REMOVE":
		e.Description = fmt.Sprintf("Removing 1 nodes from the Kubernetes Cluster with ID: %d", c.InternalID)
	default:
		e.Description = verb(eventType) + " Kubernetes cluster ID: " + c.ID
	}
	if w.since(20) || strings.HasPrefix(eventType, "KUBERNETES.CLUSTER.NODES.") {
		e.ResourceID, e.ResourceType = c.ID, "KubernetesCluster"
	}
	return e
}

// verb is the first word of a cluster command's event description ("Scaling Kubernetes cluster
// ID: <uuid>").
func verb(eventType string) string {
	switch strings.TrimPrefix(eventType, "KUBERNETES.CLUSTER.") {
	case "START":
		return "Starting"
	case "STOP":
		return "Stopping"
	case "SCALE":
		return "Scaling"
	case "UPGRADE":
		return "Upgrading"
	default:
		return "Deleting"
	}
}

// AddEvent records an event, as CloudStack does when a command is submitted.
func (w *World) AddEvent(e Event) *Event {
	if e.ID == "" {
		e.ID = w.newUUID()
	}
	if e.State == "" {
		e.State = "Scheduled"
	}
	if e.Level == "" {
		e.Level = "INFO"
	}
	if e.Account == "" {
		e.Account, e.Domain = AdminAccount, "ROOT"
	}
	w.Events = append(w.Events, &e)
	return &e
}

// eventJSON is EventResponse: resourceid, resourcetype and resourcename from 4.17.0.0 on
// (api/src/main/java/org/apache/cloudstack/api/response/EventResponse.java at 4.14.0.0 and
// 4.17.0.0).
type eventJSON struct {
	ID           string `json:"id"`
	Username     string `json:"username"`
	Type         string `json:"type"`
	Level        string `json:"level"`
	Description  string `json:"description"`
	Account      string `json:"account"`
	DomainID     string `json:"domainid,omitempty"`
	Domain       string `json:"domain"`
	ProjectID    string `json:"projectid,omitempty"`
	ResourceID   string `json:"resourceid,omitempty"`
	ResourceType string `json:"resourcetype,omitempty"`
	Created      string `json:"created"`
	State        string `json:"state"`
}

// listEvents answers as QueryManagerImpl.searchForEventsInternal (4.14.0.0, 4.17.0.0): archived
// events are never listed; type is an exact match; keyword matches type, description or level
// as a SQL LIKE '%keyword%' (case-insensitive in CloudStack's collation); id is the event's uuid; resourceid and
// resourcetype filter from 4.17 (earlier releases ignore the unknown parameters), and a
// resourceid that names no row is refused (knownResource); a deleted rule's events name no
// resource (eventResource); newest first; count is the total (searchAndCount).
func (s *Server) listEvents(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	byResource := s.world.since(17)
	if byResource && p.Get("resourceid") != "" && !s.world.knownResource(p.Get("resourcetype"), p.Get("resourceid")) {
		return nil, paramError("Invalid resourceid")
	}
	var events []*Event
	for _, ev := range s.world.Events {
		kw := p.Get("keyword")
		switch { // keyword: a LIKE '%keyword%' on type, description or level
		case ev == nil || ev.Archived:
		case p.Get("id") != "" && !strings.EqualFold(ev.ID, p.Get("id")):
		case p.Get("type") != "" && ev.Type != p.Get("type"):
		case !containsFold(kw, ev.Type, ev.Description, ev.Level):
		case byResource && p.Get("resourceid") != "" && ev.ResourceID != p.Get("resourceid"):
		case byResource && p.Get("resourcetype") != "" && ev.ResourceType != p.Get("resourcetype"):
		default:
			events = append(events, ev)
		}
	}
	slices.Reverse(events) // among equal times, the later row first
	slices.SortStableFunc(events, func(a, b *Event) int { return b.Created.Compare(a.Created) })
	return listAnswerOf(r, win, "event", events, func(ev *Event) eventJSON {
		j := eventJSON{ID: ev.ID, Username: cmp.Or(ev.Username, ev.Account), Type: ev.Type, Level: ev.Level, Description: ev.Description,
			Account: ev.Account, DomainID: ev.DomainID, Domain: ev.Domain, ProjectID: ev.ProjectID, Created: formatDate(ev.Created), State: ev.State}
		if byResource {
			j.ResourceID, j.ResourceType = s.world.eventResource(ev), ev.ResourceType
		}
		return j
	}), nil
}
