package notifier

import "github.com/cks-drift-exporter/cks-drift-exporter/collector"

// jobKind is which CloudStack call a job makes and what in the state it settles. The functions
// that treat the kinds differently (op, part, texts, call, alreadyAccepted, accepted) each switch
// on it.
type jobKind int

const (
	// jobArchive archives the alerts of one type (state.Archive): their finding cleared, or
	// their cluster is gone.
	jobArchive jobKind = iota + 1
	// jobFindingAnnotation is a finding's WARN annotation on its cluster.
	jobFindingAnnotation
	// jobFindingAlert is a finding's alert.
	jobFindingAlert
	// jobResolution is the INFO annotation of a side that matches again.
	jobResolution
	// jobSummary is the cluster's summary annotation of the findings past its caps
	// (annotationcap.go).
	jobSummary
)

// job is one CloudStack call owed, found by plan.
type job struct {
	kind      jobKind
	alertType int            // jobArchive: the type whose alerts are archived
	clusterID string         // every kind but jobArchive
	side      collector.Side // the findings' and the resolution's side
	key       string         // the findings' key
	// pastDay, of a jobSummary: the summary annotation of a cluster whose 24-hour budget is used
	// up, which comes on top of the budget (once in 24 hours)
	pastDay bool
}

// op names the CloudStack call a job makes, as fail and isPaused know it.
func (j job) op() string {
	switch j.kind {
	case jobArchive:
		return "archiveAlerts"
	case jobFindingAlert:
		return "generateAlert"
	}
	return "addAnnotation"
}

// part returns the state part a job settles; nil for an archive job, and for a part no longer in
// the state.
func (n *Notifier) part(j job) *part {
	cs := n.state.Clusters[j.clusterID]
	if cs == nil {
		return nil
	}
	switch j.kind {
	case jobSummary:
		if cs.Summary != nil {
			return &cs.Summary.Part
		}
	case jobResolution:
		if ss := cs.Sides[j.side]; ss != nil {
			return ss.Resolution
		}
	case jobFindingAnnotation:
		if a := cs.announcement(j.side, j.key); a != nil {
			return &a.Annotation
		}
	case jobFindingAlert:
		if a := cs.announcement(j.side, j.key); a != nil {
			return &a.Alert
		}
	}
	return nil
}

// texts returns what a job other than an archive job sends, read from the state now: the
// annotation, and for a finding also its alert's description, type and the finding's kind.
func (n *Notifier) texts(j job) (annotation, description string, alertType int, kind collector.Kind) {
	cs := n.state.Clusters[j.clusterID]
	switch j.kind {
	case jobSummary:
		return cs.Summary.Text, "", 0, ""
	case jobResolution:
		return InfoAnnotation(resolution(j.side, cs.Name, cs.Sides[j.side].State)), "", 0, ""
	}
	a := cs.Sides[j.side].Findings[j.key]
	return FindingAnnotation(a.Message, a.Cause), AlertDescription(a.Kind, a.Message, cs.ref(j.clusterID)), a.AlertType, a.Kind
}

// announced returns the announcement of a cluster's finding; nil when there is none.
func (s *state) announced(clusterID string, side collector.Side, key string) *announcement {
	if cs := s.Clusters[clusterID]; cs != nil {
		return cs.announcement(side, key)
	}
	return nil
}

// announcement returns the announcement of the side's finding with the key; nil when there is
// none.
func (cs *clusterState) announcement(side collector.Side, key string) *announcement {
	if ss := cs.Sides[side]; ss != nil {
		return ss.Findings[key]
	}
	return nil
}
