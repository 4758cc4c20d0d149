package notifier

import (
	"context"
	"time"
)

// One cluster can have thousands of findings (a control node that prints a node name per line
// for every node it imagines): past max_annotations_per_cluster in a window, the cluster gets one
// summary annotation instead of one annotation per finding. The summary is sent like any other
// part: marked attempted before the call, looked up in CloudStack before it is sent again.

// planSummary adds more capped findings to the cluster's summary annotation (overDay of them
// past its 24-hour budget) and returns its job when it is owed and the window has not had one
// yet: from the budget while dayLeft allows, else as the one summary of a used-up budget in 24
// hours. A summary whose earlier attempt has an unknown outcome is not changed:
// checkAnnotationSummaries asks CloudStack about it first.
func (n *Notifier) planSummary(cs *clusterState, id string, more, overDay, dayLeft int) (job, bool) {
	sm := cs.Summary
	if more+overDay > 0 && (sm == nil || sm.Part.Attempted.IsZero()) {
		if sm == nil {
			sm = &clusterSummary{}
			cs.Summary = sm
		}
		sm.More += more + overDay
		sm.PastDay = sm.PastDay || overDay > 0
		if sm.PastDay {
			sm.Text = dayBudgetSummary(cs.Name, sm.More, n.opts.MaxPerClusterPerDay, n.opts.FindingsURL)
		} else {
			sm.Text = annotationSummary(cs.Name, sm.More, n.opts.MaxAnnotationsPerCluster, n.opts.FindingsURL)
		}
		sm.Part = part{}
	}
	if sm == nil || sm.Part.Done || n.window.summarized[id] {
		return job{}, false
	}
	j := job{kind: jobSummary, clusterID: id}
	switch {
	case dayLeft > 0:
	case sm.PastDay && n.daySummaryDue(id):
		j.pastDay = true
	default:
		return job{}, false // it waits for room in the budget
	}
	n.window.summarized[id] = true
	return j, true
}

// checkAnnotationSummaries asks CloudStack about the summaries whose earlier attempt has an
// unknown outcome, before plan adds to them: a stored one is done, one not stored may change.
func (n *Notifier) checkAnnotationSummaries(ctx context.Context) {
	for id, cs := range n.state.Clusters {
		sm := cs.Summary
		if sm == nil || sm.Part.Done || sm.Part.Attempted.IsZero() {
			continue
		}
		stored, known := n.alreadyAccepted(ctx, job{kind: jobSummary, clusterID: id}, sm.Part.Attempted)
		if !known {
			continue
		}
		if stored {
			cs.Summary = nil
			continue
		}
		sm.Part.Attempted = time.Time{}
	}
}
