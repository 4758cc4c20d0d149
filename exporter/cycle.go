package exporter

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/workers"
)

// Announcer announces a cycle's statuses. What it remembers of them across restarts (first-seen
// times, states, what it announced) fills in what the last snapshot does not know: after a
// restart, all of it. Nil announces and remembers nothing (--once).
type Announcer interface {
	// FirstSeen is the first-seen time the announcer remembers for a finding, across restarts:
	// the cycle asks it only for a finding that the last snapshot does not have
	// (collector.EvaluateShard and collector.MarkStates carry the others' times over).
	FirstSeen(clusterID string, side collector.Side, key string) (time.Time, bool)
	// StateSince is the time since which the announcer remembers a cluster in a state, across
	// restarts.
	StateSince(clusterID, state string) (time.Time, bool)
	// Announced is what the announcer holds announced of a cluster, by side.
	Announced(clusterID string) map[collector.Side][]collector.Finding
	// Cause is the cause the announcer remembers for a finding, across restarts.
	Cause(clusterID string, side collector.Side, key string) (collector.Cause, bool)
	// Notify reads the statuses; it never changes them.
	Notify(ctx context.Context, statuses []collector.ClusterStatus)
}

// cycle runs one check and returns the next snapshot, not yet announced: the loop's commit
// merges it with what a re-check published meanwhile and announces that. It never fails as a
// whole: an inventory that cannot be read keeps the previous clusters and findings with Success
// false, and a cluster whose control node cannot be reached is compared on its VM side only.
func cycle(ctx context.Context, prev *collector.Snapshot, cfg *config.Config, src sources, announcer Announcer, turns *collector.Turns, logger *slog.Logger, now func() time.Time) *collector.Snapshot {
	next := carry(prev)
	next.Start = now()
	next.Enabled = true
	next.Interval = cfg.Check.Interval
	next.Shard = collector.Shard{Ordinal: cfg.Check.Shard, Total: cfg.Check.TotalShards}
	next.FindingSeriesLimit = cfg.Check.MaxFindingSeriesPerCluster
	next.Cycles++

	inv, err := src.inventory.Inventory(ctx)
	if err != nil {
		next.End = now()
		next.Success = false
		next.Error = err.Error()
		next.CycleFailures++
		if next.FailedInARow++; next.FailedInARow == 1 {
			next.FailingSince = next.Start
		}
		if ctx.Err() != nil { // shutting down: not CloudStack's failure, and the loop discards this snapshot
			logger.Info("Check cycle stopped by shutdown before the inventory was read")
			return next
		}
		logger.Error("Could not read the inventory from CloudStack, keeping the previous findings", "err", err)
		return next
	}
	turns.Next()
	nodes := listLanes(ctx, checkLanes(inv, next.Shard, prev.Clusters, turns), src.nodes, src.listed, cfg.Check.Concurrency, cfg.Check.HangingConcurrency, slowAfter(cfg), logger)
	for _, nl := range nodes {
		if nl.Err != "" {
			next.NodeListFailures[nl.Err]++
		}
	}
	var states collector.StateMemory
	var firstSeen collector.FirstSeenMemory
	if announcer != nil {
		states, firstSeen = announcer.StateSince, announcer.FirstSeen
	}
	next.Clusters = collector.EvaluateShard(prev.Clusters, inv, nodes, next.Start, cfg.Check.GracePeriod, next.Shard, firstSeen)
	if announcer != nil {
		collector.RestoreSkipped(next.Clusters, prev.Clusters, announcer.Announced)
	}
	collector.MarkStates(next.Clusters, prev.Clusters, states, firstSeen, next.Start, cfg.Check.StuckAfter) // before the accept rules: they may accept what it finds
	findCauses(ctx, next.Clusters, prev.Clusters, src, announcer, nil, next.Start, logger)
	next.Clusters, next.AcceptRules = collector.Accept(next.Clusters, inv.Clusters, cfg.Rules(), next.Start)
	logAcceptRules(prev.AcceptRules, next.AcceptRules, logger)
	logNodeSides(prev.Clusters, next.Clusters, cfg, nodeTarget(src.nodes), logger)
	logSideGaps(prev.Clusters, next.Clusters, logger)
	next.End = now()
	next.Success = true
	next.Error = ""
	next.LastSuccess = next.End
	next.FailedInARow, next.FailingSince = 0, time.Time{}
	return next
}

// carry copies what a new snapshot inherits: clusters (kept as they were when nothing could be
// read) and counters.
func carry(prev *collector.Snapshot) *collector.Snapshot {
	next := *prev
	next.NodeListFailures = make(map[string]uint64, len(prev.NodeListFailures))
	for k, v := range prev.NodeListFailures {
		next.NodeListFailures[k] = v
	}
	return &next
}

// listNodes lists the nodes of the clusters of one lane, in order, by at most concurrency workers
// (workers.ForEach), each listing bounded by the lister's timeout; a listing that took longer
// than slow is marked Slow (see lanes.go). Clusters not started when ctx ends are "cancelled".
func listNodes(ctx context.Context, clusters []collector.Cluster, lister NodeLister, listed prometheus.Observer, concurrency int, slow time.Duration, logger *slog.Logger) map[string]collector.NodeList {
	lists := make([]collector.NodeList, len(clusters))
	started := make([]bool, len(clusters))
	workers.ForEach(ctx, concurrency, len(clusters), func(i int) {
		started[i] = true
		start := time.Now()
		lists[i] = listOne(ctx, clusters[i], lister, logger)
		took := time.Since(start)
		lists[i].Slow = took > slow
		if listed != nil {
			listed.Observe(took.Seconds())
		}
	})
	out := make(map[string]collector.NodeList, len(clusters))
	for i, c := range clusters {
		if !started[i] {
			lists[i] = collector.NodeList{Err: "cancelled"}
		}
		out[c.ID] = lists[i]
	}
	return out
}

// listOne lists the nodes of one cluster.
func listOne(ctx context.Context, c collector.Cluster, lister NodeLister, logger *slog.Logger) collector.NodeList {
	nodes, err := lister.ListNodes(ctx, c)
	if err == nil {
		return nodeList(nodes)
	}
	nl := collector.NodeList{Err: failureReason(err), Detail: ssh.Detail(err)}
	logger.Debug("Could not list the Kubernetes nodes, comparing the VM map with the VMs in CloudStack only",
		"cluster", c.Name, "cluster_id", c.ID, "reason", nl.Err, "err", err)
	return nl
}

// nodeTarget returns the log fields that say where a cluster's node list is asked: the Kubernetes
// API server of its kubeconfig for that source (kubeapi.Lister.Server), else the SSH address.
func nodeTarget(nodes NodeLister) func(collector.Cluster) []any {
	if api, ok := nodes.(interface{ Server(clusterID string) string }); ok {
		return func(c collector.Cluster) []any { return []any{"api", api.Server(c.ID)} }
	}
	return func(c collector.Cluster) []any { return []any{"ssh_host", c.SSH.Host, "ssh_port", c.SSH.Port} }
}

// logNodeSides logs what changed in whether the clusters' nodes could be listed: the summaries of
// refused keys and of an outage of most clusters, and the per-cluster lines they do not stand for.
func logNodeSides(prev, cur []collector.ClusterStatus, cfg *config.Config, target func(collector.Cluster) []any, logger *slog.Logger) {
	sum := summarized{auth: logAuthSummary(prev, cur, cfg, logger)}
	sum.outageBefore, sum.outage = logOutageSummary(prev, cur, logger)
	logReachability(prev, cur, sum, target, logger)
}

// summarized says which per-cluster lines of logReachability a summary line stands for.
type summarized struct {
	auth bool // refused keys (logAuthSummary)
	// outage: the failures of an outage of most clusters' node sides (logOutageSummary);
	// outageBefore: the last cycle's, whose end the outage's INFO line says for every cluster.
	outage, outageBefore bool
}

// logReachability logs a change of kubectl reachability once, not every cycle: a WARN when a
// cluster's nodes can no longer be listed or fail for another reason, an INFO when they can again.
// What a summary line stands for is not logged per cluster: refused keys, and the failures and
// recoveries of an outage (a cluster still failing when the outage ends has a line from the next
// change of its reason on, as with refused keys). target names where the node list was asked.
func logReachability(prev, cur []collector.ClusterStatus, sum summarized, target func(collector.Cluster) []any, logger *slog.Logger) {
	before := make(map[string]collector.ClusterStatus, len(prev))
	for _, s := range prev {
		before[s.Cluster.ID] = s
	}
	for _, s := range cur {
		if !s.Checked {
			continue
		}
		p, seen := before[s.Cluster.ID]
		switch {
		case sum.auth && s.Nodes.Err == authReason: // in the summary line already
		case sum.outage && !s.Nodes.Read() && s.Nodes.Err != authReason: // in the outage's line
		case !s.Nodes.Read() && (!seen || p.Nodes.Err != s.Nodes.Err):
			logger.Warn("Could not list the Kubernetes nodes of the cluster; comparing its VM map with the VMs in CloudStack only",
				append([]any{"cluster", s.Cluster.Name, "cluster_id", s.Cluster.ID, "reason", s.Nodes.Err, "detail", s.Nodes.Detail},
					target(s.Cluster)...)...)
		case s.Nodes.Read() && seen && p.Nodes.Err != "" && !(sum.outageBefore && p.Nodes.Err != authReason):
			logger.Info("The Kubernetes nodes of the cluster can be listed again", "cluster", s.Cluster.Name, "cluster_id", s.Cluster.ID)
		}
	}
}
