package notifier

import "time"

// budget is what the caps have used in the current window. In direct mode the window is one
// pass (one cycle). In alertmanager mode every webhook runs a pass of its own, so a cap per pass
// would let a stream of webhooks write without bound: there the window is one check interval,
// across all passes.
type budget struct {
	start       time.Time
	alerts      int            // alerts for new findings planned
	summary     bool           // the capped-alerts summary was sent
	annotations map[string]int // annotations planned, by cluster id
	summarized  map[string]bool
}

// openWindow starts a new window when the current one is over.
func (n *Notifier) openWindow() {
	now := n.now()
	w := &n.window
	if n.opts.FromAlertmanager && !w.start.IsZero() && !now.Before(w.start) && now.Before(w.start.Add(n.opts.Interval)) {
		return
	}
	*w = budget{start: now, annotations: make(map[string]int), summarized: make(map[string]bool)}
}

// annotationsLeft is how many more annotations the cluster may get in the window; the summary
// annotation comes on top.
func (n *Notifier) annotationsLeft(clusterID string) int {
	return max(n.opts.MaxAnnotationsPerCluster-n.window.annotations[clusterID], 0)
}
