package exporter

import (
	"cmp"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// outageAtLeast is the fewest clusters whose node side must fail at once for an outage to be
// summed up: below it, a line per cluster is short enough and says more.
const outageAtLeast = 10

// nodeOutage counts the checked clusters whose node side could not be read for a reason other
// than a refused SSH key (which has its own summary, logAuthSummary). widespread: most of them
// failed at once, more than half of the checked clusters and at least outageAtLeast; a
// partition or a broken network between the exporter and the clusters, not one cluster.
type nodeOutage struct {
	failed, checked int
	reasons         map[string]int
	widespread      bool
}

func nodeOutageOf(statuses []collector.ClusterStatus) nodeOutage {
	o := nodeOutage{reasons: make(map[string]int)}
	for _, s := range statuses {
		if !s.Checked {
			continue
		}
		o.checked++
		if !s.Nodes.Read() && s.Nodes.Err != authReason {
			o.failed++
			o.reasons[s.Nodes.Err]++
		}
	}
	o.widespread = o.failed >= outageAtLeast && 2*o.failed > o.checked
	return o
}

// reasonCounts is "timeout=9000 handshake=1000": the reasons, the most frequent first.
func (o nodeOutage) reasonCounts() string {
	reasons := slices.SortedFunc(maps.Keys(o.reasons), func(a, b string) int {
		return cmp.Or(cmp.Compare(o.reasons[b], o.reasons[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%s=%d", r, o.reasons[r])
	}
	return strings.Join(parts, " ")
}

// Messages of the outage's summary and of its end.
const (
	msgOutage      = "The Kubernetes nodes of most clusters could not be listed; comparing their VM maps with the VMs in CloudStack only"
	msgOutageAgain = "The Kubernetes nodes of most clusters can be listed again"
)

// logOutageSummary logs one WARN when most clusters' node sides fail at once, once until that
// changes, and one INFO when it is over (with how many still fail: those get a line of their own
// from the next change of their reason on); it reports whether the summary applied in the last and in
// this cycle, so that logReachability leaves out the per-cluster lines the summary stands for.
func logOutageSummary(prev, cur []collector.ClusterStatus, logger *slog.Logger) (before, now bool) {
	was, is := nodeOutageOf(prev), nodeOutageOf(cur)
	switch {
	case is.widespread && !was.widespread:
		logger.Warn(msgOutage, "failed", is.failed, "checked", is.checked, "reasons", is.reasonCounts())
	case was.widespread && !is.widespread:
		logger.Info(msgOutageAgain, "still_failed", is.failed, "checked", is.checked)
	}
	return was.widespread, is.widespread
}
