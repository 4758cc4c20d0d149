package api

import (
	"context"
	"encoding/json"
	"slices"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// causePages bounds the pages of one finding's look-up by resource: events come newest first,
// and the event that explains a new finding is among its resource's newest. A flood of other
// events on the resource (a tenant starting and stopping its VM in a loop) costs at most
// causePages requests and leaves the finding without a cause.
const causePages = 2

// maxTriggers bounds the events, of those that started a re-check, asked for by id for one
// finding.
const maxTriggers = 2

// Causes looks up the CloudStack event that explains each wanted finding (the exporter's
// CauseFinder): the VM.UNMANAGE event that named a VM of a map unmanaged (unmanaged.cause), else
// first the events that started the re-check, by id, then listEvents by the finding's resource
// (resourceid and resourcetype filter from 4.17.0.0: ListEventsCmd at c56220fcf2, "Updating
// pom.xml version numbers for release 4.17.0.0", and 4.19.0.0; releases before ignore them and
// answer events without a resource, so nothing matches and one page is asked). causes[i] is
// wants[i]'s, zero where none explains it; it stops at the first failed request and returns its
// error with what it found so far.
func (s *Source) Causes(ctx context.Context, wants []collector.CauseWant) ([]collector.Cause, error) {
	c := s.api.SDK(ctx)
	out := make([]collector.Cause, len(wants))
	for i, w := range wants {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if cause, ok := s.unmanaged.cause(w); ok {
			out[i] = cause
			continue
		}
		cause, err := findCause(c, w)
		if err != nil {
			return out, err
		}
		out[i] = cause
	}
	return out, nil
}

// FindsRuleCauses marks the source as one that finds the event that deleted a network rule: it
// asks for the events that started a re-check by id (exporter.RuleCauseFinder).
func (s *Source) FindsRuleCauses() {}

// findCause returns the cause of one wanted finding, zero when no event explains it. The
// finding of a rule is explained only by an event that started the re-check: listEvents refuses
// a deleted rule's uuid as resourceid (collector.CauseOnRule), and that error would end the
// cycle's other look-ups.
func findCause(c *cs.CloudStackClient, w collector.CauseWant) (collector.Cause, error) {
	explains := func(e wireEvent) bool { return w.Explains(causeEvent(e)) }
	triggered := func(e wireEvent) bool {
		ev := causeEvent(e)
		ev.Triggered = true
		return w.Explains(ev)
	}
	for _, id := range w.Triggers[:min(len(w.Triggers), maxTriggers)] {
		events, err := listCauseEvents(c, w, map[string]string{"id": id}, 1, triggered)
		if err != nil {
			return collector.Cause{}, err
		}
		if i := slices.IndexFunc(events, triggered); i >= 0 {
			return causeEvent(events[i]).Cause(), nil
		}
	}
	if w.On == collector.CauseOnRule {
		return collector.Cause{}, nil
	}
	events, err := listCauseEvents(c, w, map[string]string{"resourceid": w.ResourceID, "resourcetype": string(w.On)}, causePages, explains)
	if err != nil {
		return collector.Cause{}, err
	}
	if i := slices.IndexFunc(events, explains); i >= 0 { // newest first
		return causeEvent(events[i]).Cause(), nil
	}
	return collector.Cause{}, nil
}

// listCauseEvents lists, newest first, the events extra selects, in the scope of the finding's
// cluster (its project, for a project's cluster), up to pages pages: it ends at the page that
// holds an event that explains the finding, at one whose oldest event is older than the look-back,
// and at one of events without a resource (a release that ignores resourceid).
func listCauseEvents(c *cs.CloudStackClient, w collector.CauseWant, extra map[string]string, pages int, explains func(wireEvent) bool) ([]wireEvent, error) {
	return cloudstackapi.List(cloudstackapi.Listing[wireEvent, json.RawMessage]{
		What: "events", Size: eventPageSize, Count: cloudstackapi.Unread, MaxPages: pages,
		Until: func(page []wireEvent) bool {
			if slices.ContainsFunc(page, explains) || len(page) == 0 {
				return true
			}
			last := page[len(page)-1]
			return string(last.ResourceID) == "" || cloudstackapi.ParseDate(string(last.Created)).Before(w.Since)
		},
		Request: func(page, size int) (json.RawMessage, error) {
			return requestPage(c, "listEvents", w.Cluster.ProjectID, page, size, extra)
		},
		Decode: func(body json.RawMessage) (int, []wireEvent, error) { return decodeList[wireEvent](body, "event") },
	})
}

// causeEvent is e as the engine reads events.
func causeEvent(e wireEvent) collector.CauseEvent {
	return collector.CauseEvent{
		ID: string(e.ID), Type: string(e.Type), State: string(e.State), Description: string(e.Description),
		Username: string(e.Username), Account: string(e.Account),
		DomainID: string(e.DomainID), Domain: string(e.Domain), ProjectID: string(e.ProjectID),
		ResourceID: string(e.ResourceID), ResourceType: string(e.ResourceType), Level: string(e.Level),
		Created: cloudstackapi.ParseDate(string(e.Created)),
	}
}
