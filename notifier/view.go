package notifier

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// PartState says where one part of a finding's announcement (its annotation or its alert) is.
type PartState string

// The states of a part.
const (
	PartSent PartState = "sent" // CloudStack accepted it
	PartOwed PartState = "owed" // not tried yet: the next pass sends it
	// PartFailed: tried, but CloudStack did not accept it (or could not say whether it did); the
	// next pass looks it up and sends it again if it did not get through.
	PartFailed PartState = "failed"
	// PartCapped: held back by a cap; a summary (one alert a cycle, one annotation a cluster)
	// counts it instead.
	PartCapped PartState = "capped"
	PartOff    PartState = "off" // not sent: the notifier, or this kind of call, was switched off
)

// PartView is one part of an announcement as the status page and /findings show it.
type PartView struct {
	State PartState `json:"state"`
	// At is when CloudStack accepted a sent part (absent in state files written before it was
	// kept), or when a failed part was last tried.
	At *time.Time `json:"at,omitempty"`
}

// AnnouncementView is what the notifier knows of one finding's announcement.
type AnnouncementView struct {
	Annotation PartView `json:"annotation"`
	Alert      PartView `json:"alert"`
}

// View is a read-only copy of the announcements in the notifier's state, taken at the end of a
// pass: the notifier stays the one owner of its state, and a reader (a page, a scrape) never
// waits for a pass whose CloudStack calls are under way.
type View struct {
	// Mode is how findings are announced: "direct", "alertmanager" (only the alerts
	// Alertmanager reports firing) or "off" (the notifier is disabled).
	Mode     string
	findings map[viewKey]AnnouncementView
}

type viewKey struct {
	cluster string
	side    collector.Side
	key     string
}

// Announcement returns the announcement of a cluster's finding, and false when the notifier has
// none (not announced yet: a finding of this cycle in alertmanager mode, or one the notifier
// never saw).
func (v *View) Announcement(clusterID string, side collector.Side, key string) (AnnouncementView, bool) {
	if v == nil {
		return AnnouncementView{}, false
	}
	a, ok := v.findings[viewKey{clusterID, side, key}]
	return a, ok
}

// View returns the view of the last pass; never nil.
func (n *Notifier) View() *View {
	if v := n.view.Load(); v != nil {
		return v
	}
	return &View{}
}

// publish replaces the view with one of the state as it is now; called with mu held.
func (n *Notifier) publish() {
	n.view.Store(newView(&n.state, n.opts))
}

func newView(s *state, o Options) *View {
	v := &View{Mode: "direct", findings: make(map[viewKey]AnnouncementView)}
	switch {
	case !o.Enabled:
		v.Mode = "off"
	case o.FromAlertmanager:
		v.Mode = "alertmanager"
	}
	for id, cs := range s.Clusters {
		for side, ss := range cs.Sides {
			for key, a := range ss.Findings {
				v.findings[viewKey{id, side, key}] = AnnouncementView{
					Annotation: a.Annotation.view(a.AnnotationCapped),
					Alert:      a.Alert.view(a.Capped),
				}
			}
		}
	}
	return v
}

func (p part) view(capped bool) PartView {
	switch {
	case capped:
		return PartView{State: PartCapped}
	case p.Off:
		return PartView{State: PartOff}
	case p.Done:
		return PartView{State: PartSent, At: timeOrNil(p.At)}
	case !p.Attempted.IsZero():
		return PartView{State: PartFailed, At: timeOrNil(p.Attempted)}
	default:
		return PartView{State: PartOwed}
	}
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
