package notifier

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// state is what the notifier remembers across restarts: per cluster and side, the findings it has
// announced or is announcing, and the CloudStack calls still owed.
type state struct {
	Clusters map[string]*clusterState `json:"clusters"`
	// Archive lists alert types whose alerts must be archived (their finding cleared or their
	// cluster is gone), so that the type can alert again.
	Archive []int `json:"archive,omitempty"`
	// Summary is a capped-findings summary alert not yet accepted by CloudStack.
	Summary *alertSummary `json:"summary,omitempty"`
	// SummaryOpen: CloudStack holds a summary alert, not archived yet (see summary.go).
	SummaryOpen bool `json:"summary_open,omitempty"`
	// Firing holds the drift alerts Alertmanager reports firing, by fingerprint (alertmanager
	// mode only).
	Firing map[string]firingAlert `json:"firing,omitempty"`
	// Days holds, by cluster id, what the cluster was sent over the last 24 hours (see daybudget.go).
	Days map[string]*daySent `json:"days,omitempty"`
	// States holds, by cluster id, since when each cluster in an operation state has been in it
	// (see stuck.go), so that a restart does not start its clock again.
	States map[string]stateSeen `json:"states,omitempty"`
}

// clusterState is one cluster's notification state.
type clusterState struct {
	Name   string `json:"name"`
	ZoneID string `json:"zone_id"`
	// Owner is the cluster's tenant (collector.Cluster.Owner): the alert cap goes round by owner.
	Owner string `json:"owner,omitempty"`
	// Account and Project name the owner in the alerts (ClusterRef).
	Account string                        `json:"account,omitempty"`
	Project string                        `json:"project,omitempty"`
	Sides   map[collector.Side]*sideState `json:"sides"`
	// Summary is the annotation that names the new findings past the annotation cap, not yet
	// accepted by CloudStack.
	Summary *clusterSummary `json:"summary,omitempty"`
}

// clusterSummary is the one annotation of a cluster whose new findings passed
// max_annotations_per_cluster: how many were not annotated one by one, summed with those of
// earlier passes whose summary CloudStack did not accept yet.
type clusterSummary struct {
	More int    `json:"more"`
	Text string `json:"text"`
	Part part   `json:"part"`
	// PastDay: some of them were past the cluster's 24-hour budget; the text says so.
	PastDay bool `json:"past_day,omitempty"`
}

// sideState is one side's announced findings and a resolution still owed.
type sideState struct {
	Findings   map[string]*announcement `json:"findings"`
	Resolution *part                    `json:"resolution,omitempty"` // the INFO annotation
	// AcceptedOnly: the side's announced drift cleared, but findings an operator accepts remain,
	// so the side does not match yet; its resolution is owed once they clear too.
	AcceptedOnly bool `json:"accepted_only,omitempty"`
	// State is, on the operation side, the state the cluster is stuck in: its resolution names it.
	State string `json:"state,omitempty"`
}

// announcement tracks one finding's announcement, part by part: a part is done only when
// CloudStack accepted it, and a done part is never sent again.
type announcement struct {
	Kind      collector.Kind `json:"kind"`
	Message   string         `json:"message"`
	FirstSeen time.Time      `json:"first_seen"`
	// VMID and VMName are the finding's, so that after a restart a skipped cluster still shows
	// the findings it had (see Notifier.Announced); states written before they were kept have
	// neither.
	VMID       string `json:"vm_id,omitempty"`
	VMName     string `json:"vm_name,omitempty"`
	Annotation part   `json:"annotation"`
	Alert      part   `json:"alert"`
	AlertType  int    `json:"alert_type,omitempty"`
	Capped     bool   `json:"capped,omitempty"`
	// Summarized: the alert cap kept this finding from an alert of its own, and the summary
	// alert counts it while it is open (see summary.go). Capped findings of releases before it
	// do not have it, nor findings past their cluster's 24-hour budget.
	Summarized bool `json:"summarized,omitempty"`
	// AnnotationCapped: the annotation cap kept this finding from an annotation of its own; the
	// cluster's summary annotation counts it.
	AnnotationCapped bool `json:"annotation_capped,omitempty"`
	// Cause is the CloudStack event that explained the finding when it was new, which its
	// annotation names; states written before causes were kept have none (an additive field:
	// an older release reads the state and drops it).
	Cause collector.Cause `json:"cause,omitzero"`
}

// part is one CloudStack call owed. Attempted is set before the call is made, so that after a
// failure or a crash whose outcome is unknown the notifier asks CloudStack before sending again.
type part struct {
	Done      bool      `json:"done"`
	Attempted time.Time `json:"attempted,omitempty"`
	// At is when CloudStack accepted the part, for the status page; Off marks a part settled
	// without a call because it was switched off.
	At  time.Time `json:"at,omitempty"`
	Off bool      `json:"off,omitempty"`
}

// ref is the cluster as an alert names it.
func (cs *clusterState) ref(id string) ClusterRef {
	return ClusterRef{ID: id, Name: cs.Name, Account: cs.Account, Project: cs.Project}
}

// alertSummary is the summary alert owed: the capped findings still open, by cluster uuid
// (see summary.go).
// (Releases that counted them by cluster name kept them under "capped", which is no longer read:
// such a summary is dropped unsent, its findings logged and annotated all the same.)
type alertSummary struct {
	Capped      map[string]*cappedCount `json:"by_cluster"`
	Limit       int                     `json:"limit"`
	Description string                  `json:"description,omitempty"` // as last sent, to verify it
	Part        part                    `json:"part"`
}

// cappedCount is how many findings of one cluster the summary counts, with the names that
// tell the cluster from another of the same name, and how many of each kind.
type cappedCount struct {
	Name    string                 `json:"name"`
	Account string                 `json:"account,omitempty"`
	Project string                 `json:"project,omitempty"`
	Count   int                    `json:"count"`
	Kinds   map[collector.Kind]int `json:"kinds,omitempty"`
}

// event is something to log and announce, decided by update.
type event struct {
	ClusterID, Cluster string
	Side               collector.Side
	Resolved           bool // the side matches again
	Finding            collector.Finding
	// State is, for the resolution of the operation side, the state the cluster was stuck in.
	State string
}

// update brings the state up to date with one cycle's statuses, without any I/O: new findings get
// an announcement, cleared ones are dropped (their alert types queued for archiving), a side whose
// last finding cleared owes a resolution, and clusters no longer in statuses are forgotten.
// Skipped clusters and sides that were not compared (collector.SideDeclaration.Compared) are left
// exactly as they were.
func (s *state) update(statuses []collector.ClusterStatus) []event {
	if s.Clusters == nil {
		s.Clusters = make(map[string]*clusterState)
	}
	var events []event
	present := make(map[string]bool, len(statuses))
	for i := range statuses {
		st := &statuses[i]
		c := st.Cluster
		present[c.ID] = true
		cs := s.Clusters[c.ID]
		if !st.Checked && len(st.On(collector.SideOperation)) == 0 && (cs == nil || cs.Sides[collector.SideOperation] == nil) {
			continue // a skipped cluster's sides but the operation side stay exactly as they were
		}
		if cs == nil {
			cs = &clusterState{Sides: make(map[collector.Side]*sideState)}
			s.Clusters[c.ID] = cs
		}
		cs.Name, cs.ZoneID, cs.Owner, cs.Account, cs.Project = c.Name, c.ZoneID, c.Owner(), c.Account, c.Project
		events = append(events, s.updateOperation(cs, c, st.On(collector.SideOperation), st.AcceptedOn(collector.SideOperation) > 0)...)
		for _, d := range collector.SideDeclarations {
			if d.Side != collector.SideOperation && d.Compared(*st) {
				events = append(events, s.updateSide(cs, c, d.Side, st.On(d.Side), st.AcceptedOn(d.Side) > 0)...)
			}
		}
		if len(cs.Sides) == 0 {
			delete(s.Clusters, c.ID)
		}
	}
	for id, cs := range s.Clusters {
		if !present[id] {
			for _, side := range cs.Sides {
				s.archiveAll(side)
			}
			delete(s.Clusters, id)
		}
	}
	s.rememberStates(statuses)
	return events
}

// updateSide brings one side up to date with its findings, the accepted ones left out: they are
// never announced, and an announced finding that becomes accepted is dropped like one that
// cleared (its alert archived), so that it is new again once its rule is removed. accepted says
// whether the side has accepted findings: while it does, it does not match again.
func (s *state) updateSide(cs *clusterState, c collector.Cluster, side collector.Side, findings []collector.Finding, accepted bool) []event {
	ss := cs.Sides[side]
	if ss == nil {
		ss = &sideState{Findings: make(map[string]*announcement)}
	}
	var events []event
	current := make(map[string]bool, len(findings))
	for _, f := range findings {
		key := f.Key()
		current[key] = true
		if _, known := ss.Findings[key]; known {
			continue
		}
		ss.Findings[key] = &announcement{Kind: f.Kind, Message: f.Message, FirstSeen: f.FirstSeen, VMID: f.VMID, VMName: f.VMName, Cause: f.Cause}
		events = append(events, event{ClusterID: c.ID, Cluster: c.Name, Side: side, Finding: f})
	}
	hadFindings := len(ss.Findings) > 0
	for key, a := range ss.Findings {
		if !current[key] {
			if a.mayHaveAlert() {
				s.Archive = appendUnique(s.Archive, a.AlertType)
			}
			delete(ss.Findings, key)
		}
	}
	switch {
	case len(findings) > 0:
		ss.Resolution = nil // drift is back before the resolution was accepted: it no longer holds
		ss.AcceptedOnly = false
	case accepted:
		ss.AcceptedOnly = ss.AcceptedOnly || hadFindings || ss.Resolution != nil
		ss.Resolution = nil
	case hadFindings || ss.AcceptedOnly:
		ss.AcceptedOnly = false
		ss.Resolution = &part{}
		events = append(events, event{ClusterID: c.ID, Cluster: c.Name, Side: side, Resolved: true})
	}
	if len(ss.Findings) == 0 && ss.Resolution == nil && !ss.AcceptedOnly {
		delete(cs.Sides, side)
	} else {
		cs.Sides[side] = ss
	}
	return events
}

func (s *state) archiveAll(ss *sideState) {
	for _, a := range ss.Findings {
		if a.mayHaveAlert() {
			s.Archive = appendUnique(s.Archive, a.AlertType)
		}
	}
}

// mayHaveAlert reports whether CloudStack may hold the finding's alert: sent, or attempted with
// an outcome never learnt (its job could not be queried, or the process stopped). Such an alert
// must be archived when the finding clears, or it stays open in CloudStack.
func (a *announcement) mayHaveAlert() bool {
	return a.AlertType != 0 && !a.Capped && (a.Alert.Done || !a.Alert.Attempted.IsZero())
}

func appendUnique(list []int, v int) []int {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
