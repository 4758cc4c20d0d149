package notifier

import (
	"context"
	"time"
)

// One cluster can have thousands of findings (a control node that prints a node name per line
// for every node it imagines): past max_annotations_per_cluster in a window, the cluster gets one
// summary annotation instead of one annotation per finding. The summary is sent like any other
// part: marked attempted before the call, looked up in CloudStack before it is sent again.

// planSummary adds more capped findings to the cluster's summary annotation and returns its job
// when it is owed and the window has not had one yet. A summary whose earlier attempt has an
// unknown outcome is not changed: checkSummaries asks CloudStack about it first.
func (n *Notifier) planSummary(cs *ClusterState, id string, more int) (job, bool) {
	sm := cs.Summary
	if more > 0 && (sm == nil || sm.Part.Attempted.IsZero()) {
		if sm == nil {
			sm = &AnnotationSummary{}
			cs.Summary = sm
		}
		sm.More += more
		sm.Text = annotationSummary(cs.Name, sm.More, n.opts.MaxAnnotationsPerCluster, n.opts.FindingsURL)
		sm.Part = Part{}
	}
	if sm == nil || sm.Part.Done || n.window.summarized[id] {
		return job{}, false
	}
	n.window.summarized[id] = true
	return job{clusterID: id, summary: true}, true
}

// checkAnnotationSummaries asks CloudStack about the summaries whose earlier attempt has an
// unknown outcome, before plan adds to them: a stored one is done, one not stored may change.
func (n *Notifier) checkAnnotationSummaries(ctx context.Context) {
	for id, cs := range n.state.Clusters {
		sm := cs.Summary
		if sm == nil || sm.Part.Done || sm.Part.Attempted.IsZero() {
			continue
		}
		stored, known := n.alreadyAccepted(ctx, job{clusterID: id, summary: true}, sm.Part.Attempted)
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
