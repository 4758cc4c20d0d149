package report

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// Report is the JSON of /findings and of --once.format=json.
type Report struct {
	// Generated is when the report was made: the ages in it count up to it.
	Generated *time.Time  `json:"generated,omitempty"`
	Cycle     CycleReport `json:"cycle"`
	Enabled   bool        `json:"check_enabled"`
	// NotifierMode is how findings are announced (notifier.View's Mode: direct, alertmanager or
	// off); empty where the report says nothing of announcements (--once announces nothing).
	NotifierMode string `json:"notifier_mode,omitempty"`
	// Summary counts every cluster of the cycle, also when Clusters is filtered.
	Summary  Summary         `json:"summary"`
	Clusters []ClusterReport `json:"clusters"`
}

// CycleReport describes the last completed cycle.
type CycleReport struct {
	Start       *time.Time `json:"start,omitempty"`
	End         *time.Time `json:"end,omitempty"`
	Success     bool       `json:"success"`
	Error       string     `json:"error,omitempty"`
	LastSuccess *time.Time `json:"last_success,omitempty"`
}

// ClusterReport is one cluster with its active findings.
type ClusterReport struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
	// StateSince is when the cluster entered State, as far as the exporter knows; for a skipped
	// cluster, since when it has been skipped for it.
	StateSince     *time.Time `json:"state_since,omitempty"`
	ClusterType    string     `json:"cluster_type"`
	Zone           string     `json:"zone"`
	Account        string     `json:"account"`
	Domain         string     `json:"domain"`
	Project        string     `json:"project,omitempty"`
	Checked        bool       `json:"checked"`
	NodesReachable bool       `json:"kubectl_reachable"`
	NodesError     string     `json:"kubectl_error,omitempty"`
	NodesDetail    string     `json:"kubectl_detail,omitempty"`
	// SkipReason says why a cluster was not checked: its state, or its cluster type
	// (cks_drift_cluster_status's reason); SkippedSeconds for how long: from StateSince (a
	// cluster is skipped for as long as it is in a state, or of a type, that is not checked) to
	// Generated.
	SkipReason     string `json:"skip_reason,omitempty"`
	SkippedSeconds *int64 `json:"skipped_seconds,omitempty"`
	// CloudStackURL is the cluster's page in CloudStack's UI.
	CloudStackURL string          `json:"cloudstack_url,omitempty"`
	Findings      []FindingReport `json:"findings"`
	// Accepted are the findings an accept rule accepts, with its reason and until: not drift to
	// act on, so not in Findings.
	Accepted []collector.AcceptedFinding `json:"accepted,omitempty"`
	// Resolved are the cluster's recently resolved findings, newest first.
	Resolved []ResolvedReport `json:"recently_resolved,omitempty"`
}

// FindingReport is a finding with what an operator asks next: how old it is, whether CloudStack
// was told, what to do, and where to look.
type FindingReport struct {
	collector.Finding
	AgeSeconds *int64 `json:"age_seconds,omitempty"` // from first_seen to Generated
	// Announcement is what the notifier knows of the finding's annotation and alert; absent when
	// it has none (see Report.NotifierMode).
	Announcement *notifier.AnnouncementView `json:"announcement,omitempty"`
	RunbookURL   string                     `json:"runbook_url,omitempty"`
	// CloudStackURL is the VM's page in CloudStack's UI, for a kind whose VM exists.
	CloudStackURL string `json:"cloudstack_url,omitempty"`
}

// ResolvedReport is a finding that cleared, and when.
type ResolvedReport struct {
	collector.Finding
	ResolvedAt time.Time `json:"resolved"`
}

// Context is what a report adds to a snapshot; the zero Context adds nothing.
type Context struct {
	Now time.Time // when the report is made; zero: no ages
	// Announcements is the notifier's view of what it announced; nil: nothing said of it.
	Announcements *notifier.View
	// UIURL is CloudStack's UI (cloudstack.ui_url); empty: no links into it.
	UIURL string
}

// New builds the report of a snapshot.
func New(s *collector.Snapshot, x Context) Report {
	r := Report{
		Generated: timePtr(x.Now),
		Cycle:     CycleReport{Start: timePtr(s.Start), End: timePtr(s.End), Success: s.Success, Error: s.Error, LastSuccess: timePtr(s.LastSuccess)},
		Enabled:   s.Enabled,
		Clusters:  make([]ClusterReport, 0, len(s.Clusters)),
	}
	if x.Announcements != nil {
		r.NotifierMode = x.Announcements.Mode
	}
	resolved := make(map[string][]ResolvedReport)
	for _, h := range s.Resolved {
		resolved[h.ClusterID] = append(resolved[h.ClusterID], ResolvedReport{Finding: h.Finding, ResolvedAt: h.ResolvedAt.UTC()})
	}
	for _, cs := range s.Clusters {
		c := cs.Cluster
		cr := ClusterReport{
			ID: c.ID, Name: c.Name, State: c.State, StateSince: timePtr(cs.StateSince), ClusterType: c.ClusterType, Zone: c.ZoneName,
			Account: c.Account, Domain: c.Domain, Project: c.Project,
			Checked: cs.Checked, NodesReachable: cs.Nodes.Read(), NodesError: cs.Nodes.Err,
			NodesDetail:   cs.Nodes.Detail,
			CloudStackURL: clusterUIURL(x.UIURL, c.ID),
			Findings:      make([]FindingReport, 0, len(cs.Findings())),
			Accepted:      cs.Accepted,
			Resolved:      resolved[c.ID],
		}
		if !cs.Checked {
			_, cr.SkipReason = cs.Status()
			cr.SkippedSeconds = age(cs.StateSince, x.Now)
		}
		for _, side := range collector.Sides {
			for _, f := range cs.On(side) {
				fr := FindingReport{Finding: f, AgeSeconds: age(f.FirstSeen, x.Now), RunbookURL: RunbookURL(f.Kind), CloudStackURL: vmUIURL(x.UIURL, f)}
				if a, ok := x.Announcements.Announcement(c.ID, side, f.Key()); ok {
					fr.Announcement = &a
				}
				cr.Findings = append(cr.Findings, fr)
			}
		}
		r.Clusters = append(r.Clusters, cr)
	}
	r.Summary = Summarize(r.Clusters)
	return r
}

// FindingCount returns the number of active findings.
func (r Report) FindingCount() int {
	n := 0
	for _, c := range r.Clusters {
		n += len(c.Findings)
	}
	return n
}

// age returns the whole seconds from t to now, nil when either is unknown; never negative.
func age(t, now time.Time) *int64 {
	if t.IsZero() || now.IsZero() {
		return nil
	}
	s := max(int64(now.Sub(t)/time.Second), 0)
	return &s
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
