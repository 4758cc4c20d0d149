package notifier

import (
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The caps of a cycle bound one cycle only: a control node that prints a thousand fresh node
// names every cycle gets max_annotations_per_cluster annotations, its share of the alerts and a
// summary every cycle, 3,000 writes a day into CloudStack at a 5-minute interval. So each
// cluster also has a budget over a rolling 24 hours (MaxPerClusterPerDay): every annotation and
// alert about it that CloudStack accepted counts one. Past it, its new findings are logged and
// listed in /findings but not annotated or alerted, and the cluster gets one summary annotation
// that says so; that summary comes on top of the budget, at most once in 24 hours. What was sent
// is kept in the state file with the time CloudStack accepted it, so a restart does not give a
// cluster a new budget. A resolution past the budget waits until the budget has room (there is
// at most one per side), as it does past the cycle's cap.

// day is the window of the budget.
const day = 24 * time.Hour

// daySent is what one cluster was sent in the last 24 hours.
type daySent struct {
	// Sent holds when CloudStack accepted each annotation and alert, oldest first; never more
	// than the budget.
	Sent []time.Time `json:"sent,omitempty"`
	// Summary is when the annotation that says the budget is used up was last accepted.
	Summary time.Time `json:"summary,omitzero"`
}

// dayLeft is how many more annotations and alerts the cluster may get in the rolling 24 hours.
func (n *Notifier) dayLeft(clusterID string) int {
	d := n.state.Days[clusterID]
	if d == nil {
		return n.opts.MaxPerClusterPerDay
	}
	return max(n.opts.MaxPerClusterPerDay-len(d.Sent), 0)
}

// daySummaryDue reports whether the cluster may get the summary of its used-up budget: not
// within 24 hours of the last one.
func (n *Notifier) daySummaryDue(clusterID string) bool {
	d := n.state.Days[clusterID]
	return d == nil || d.Summary.IsZero() || !n.now().Before(d.Summary.Add(day))
}

// spent records a call about the cluster that CloudStack accepted; the summary of a used-up
// budget is recorded apart.
func (n *Notifier) spent(clusterID string, budgetSummary bool) {
	if n.state.Days == nil {
		n.state.Days = make(map[string]*daySent)
	}
	d := n.state.Days[clusterID]
	if d == nil {
		d = &daySent{}
		n.state.Days[clusterID] = d
	}
	if budgetSummary {
		d.Summary = n.now()
		return
	}
	d.Sent = append(d.Sent, n.now())
	if over := len(d.Sent) - n.opts.MaxPerClusterPerDay; over > 0 {
		d.Sent = d.Sent[over:] // a lower budget after a reload: the oldest are the first to go
	}
}

// pruneDays drops what is older than 24 hours, and the clusters that are gone.
func (s *state) pruneDays(now time.Time, statuses []collector.ClusterStatus) {
	present := make(map[string]bool, len(statuses))
	for _, st := range statuses {
		present[st.Cluster.ID] = true
	}
	for id, d := range s.Days {
		keep := 0
		for keep < len(d.Sent) && !now.Before(d.Sent[keep].Add(day)) {
			keep++
		}
		d.Sent = d.Sent[keep:]
		if !d.Summary.IsZero() && !now.Before(d.Summary.Add(day)) {
			d.Summary = time.Time{}
		}
		if !present[id] || (len(d.Sent) == 0 && d.Summary.IsZero()) {
			delete(s.Days, id)
		}
	}
}
