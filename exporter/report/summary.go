package report

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Summary counts what a report holds, so that an operator sees at a glance what is wrong before
// reading the clusters one by one. It always describes every cluster of the cycle, also when the
// clusters of a report are filtered.
type Summary struct {
	Clusters int `json:"clusters"`
	Checked  int `json:"checked"`
	Skipped  int `json:"skipped"`
	// Unreachable counts checked clusters whose Kubernetes nodes could not be listed: their node
	// side was not compared.
	Unreachable          int `json:"unreachable"`
	ClustersWithFindings int `json:"clusters_with_findings"`
	Findings             int `json:"findings"`
	// ByKind has every kind, zeros included, so that a reader never has to guess a missing key.
	ByKind map[collector.Kind]int `json:"by_kind"`
	// Accepted counts the findings accept rules accept; they are not in Findings.
	Accepted int `json:"accepted"`
}

// Summarize counts the clusters and findings of a report.
func Summarize(clusters []ClusterReport) Summary {
	s := Summary{Clusters: len(clusters), ByKind: make(map[collector.Kind]int, len(collector.Kinds))}
	for _, k := range collector.Kinds {
		s.ByKind[k] = 0
	}
	for _, c := range clusters {
		if !c.Checked {
			s.Skipped++
		} else {
			s.Checked++
		}
		if c.Unreachable() {
			s.Unreachable++
		}
		if len(c.Findings) > 0 {
			s.ClustersWithFindings++
		}
		s.Findings += len(c.Findings)
		s.Accepted += len(c.Accepted)
		for _, f := range c.Findings {
			s.ByKind[f.Kind]++
		}
	}
	return s
}

// Unreachable reports whether the cluster was checked but its node side could not be read.
func (c ClusterReport) Unreachable() bool { return c.Checked && !c.NodesReachable }

// Problem reports whether the cluster needs an operator's attention: it has findings, or its
// node side could not be read. A skipped cluster is not a problem by itself: its state says an
// operation is under way.
func (c ClusterReport) Problem() bool { return len(c.Findings) > 0 || c.Unreachable() }

// Filter selects the clusters and findings of a report; the zero Filter selects everything.
type Filter struct {
	Problems bool           // only clusters with findings or an unreadable node side
	Cluster  string         // only the cluster with this id or name
	Kind     collector.Kind // only findings of this kind, and the clusters that have them
}

// ParseFilter reads a filter from the query of /findings and of the status page:
// problems=1, cluster=<id or name>, kind=<kind>.
func ParseFilter(q url.Values) (Filter, error) {
	var f Filter
	switch p := q.Get("problems"); p {
	case "", "0", "false":
	case "1", "true":
		f.Problems = true
	default:
		return f, fmt.Errorf("problems=%q: use problems=1 or leave it out", p)
	}
	f.Cluster = q.Get("cluster")
	if k := q.Get("kind"); k != "" {
		if !slices.Contains(collector.Kinds, collector.Kind(k)) {
			names := make([]string, len(collector.Kinds))
			for i, k := range collector.Kinds {
				names[i] = string(k)
			}
			return f, fmt.Errorf("kind=%q is not a kind of drift; kinds: %s", k, strings.Join(names, ", "))
		}
		f.Kind = collector.Kind(k)
	}
	return f, nil
}

// Apply returns the clusters the filter selects, each with only the selected findings. The
// input is not changed.
func (f Filter) Apply(clusters []ClusterReport) []ClusterReport {
	out := make([]ClusterReport, 0, len(clusters))
	for _, c := range clusters {
		if f.Cluster != "" && c.ID != f.Cluster && c.Name != f.Cluster {
			continue
		}
		if f.Problems && !c.Problem() {
			continue
		}
		if f.Kind != "" {
			var kept []FindingReport
			for _, x := range c.Findings {
				if x.Kind == f.Kind {
					kept = append(kept, x)
				}
			}
			var accepted []collector.AcceptedFinding
			for _, x := range c.Accepted {
				if x.Kind == f.Kind {
					accepted = append(accepted, x)
				}
			}
			var resolved []ResolvedReport
			for _, x := range c.Resolved {
				if x.Kind == f.Kind {
					resolved = append(resolved, x)
				}
			}
			if len(kept) == 0 && len(accepted) == 0 && len(resolved) == 0 {
				continue
			}
			c.Findings, c.Accepted, c.Resolved = kept, accepted, resolved
		}
		out = append(out, c)
	}
	return out
}
