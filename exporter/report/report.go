package report

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Report is the JSON of /findings and of --once.format=json.
type Report struct {
	Cycle   CycleReport `json:"cycle"`
	Enabled bool        `json:"check_enabled"`
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
	StateSince     *time.Time          `json:"state_since,omitempty"`
	ClusterType    string              `json:"cluster_type"`
	Zone           string              `json:"zone"`
	Account        string              `json:"account"`
	Domain         string              `json:"domain"`
	Project        string              `json:"project,omitempty"`
	Checked        bool                `json:"checked"`
	NodesReachable bool                `json:"kubectl_reachable"`
	NodesError     string              `json:"kubectl_error,omitempty"`
	NodesDetail    string              `json:"kubectl_detail,omitempty"`
	Findings       []collector.Finding `json:"findings"`
	// Accepted are the findings an accept rule accepts, with its reason and until: not drift to
	// act on, so not in Findings.
	Accepted []collector.AcceptedFinding `json:"accepted,omitempty"`
}

// New builds the report of a snapshot.
func New(s *collector.Snapshot) Report {
	r := Report{
		Cycle:    CycleReport{Start: timePtr(s.Start), End: timePtr(s.End), Success: s.Success, Error: s.Error, LastSuccess: timePtr(s.LastSuccess)},
		Enabled:  s.Enabled,
		Clusters: make([]ClusterReport, 0, len(s.Clusters)),
	}
	for _, cs := range s.Clusters {
		c := cs.Cluster
		r.Clusters = append(r.Clusters, ClusterReport{
			ID: c.ID, Name: c.Name, State: c.State, StateSince: timePtr(cs.StateSince), ClusterType: c.ClusterType, Zone: c.ZoneName,
			Account: c.Account, Domain: c.Domain, Project: c.Project,
			Checked: cs.Checked, NodesReachable: cs.NodesReachable, NodesError: cs.NodesError,
			NodesDetail: cs.NodesDetail,
			Findings:    cs.Findings(),
			Accepted:    cs.Accepted,
		})
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

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
