package exporter

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// A control node that timed out in the last cycle will most likely time out again: it holds a
// worker for the whole ssh.timeout, doing nothing but wait. In one pool with the others, 48 such
// nodes of one tenant at a concurrency of 16 held every worker for three timeouts, and every
// other cluster's listing waited behind them. So they wait in a lane of their own, with workers
// of their own (check.hanging_concurrency): waiting on a silent socket costs no CPU, so that lane
// can be wide, and it never takes a worker from a node that answers. A node that answers just
// before the timeout holds a worker as long, so a listing that took longer than slowFraction of
// the node source's timeout sends its cluster to that lane too. A node that answers in time again
// leaves the lane at the next cycle; one that starts hanging joins it at the next cycle, and
// until then holds one worker of the answering lane for one timeout. Within a lane the clusters
// take turns by owner (collector.RoundRobin), so a tenant with many clusters, slow or not, cannot
// put its clusters ahead of everyone else's either. Every checked cluster is tried once a cycle.

// slowFraction is the share of the node source's timeout (ssh.timeout, or kubernetes_api.timeout)
// past which a listing is slow: half of it, 5 s of the default 10 s, where kubectl on a healthy
// control node answers in well under a second.
const slowFraction = 0.5

// slowAfter is how long a listing may take before it is slow.
func slowAfter(cfg *config.Config) time.Duration {
	timeout := cfg.SSH.Timeout
	if cfg.Check.NodeSource == config.NodeSourceKubernetesAPI {
		timeout = cfg.KubernetesAPI.Timeout
	}
	return time.Duration(float64(timeout) * slowFraction)
}

// lanes are the clusters whose nodes a cycle lists, split by how their control node behaved in
// the last cycle, each in the order its workers take them.
type lanes struct {
	answering []collector.Cluster
	slow      []collector.Cluster // timed out, or slow, in the last cycle
}

// checkLanes returns the clusters of the shard that are checked in this cycle, in their lanes.
func checkLanes(inv collector.Inventory, shard collector.Shard, prev []collector.ClusterStatus, turns *collector.Turns) lanes {
	slow := make(map[string]bool)
	for _, s := range prev {
		if s.Nodes.Err == "timeout" || s.Nodes.Slow {
			slow[s.Cluster.ID] = true
		}
	}
	checked, _ := collector.Plan(inv, shard)
	var l lanes
	for _, c := range checked {
		if slow[c.ID] {
			l.slow = append(l.slow, c)
		} else {
			l.answering = append(l.answering, c)
		}
	}
	l.answering, l.slow = fairOrder(turns, l.answering), fairOrder(turns, l.slow)
	return l
}

// fairOrder orders clusters by owner in turns, an owner's own clusters by their keyed hash.
func fairOrder(turns *collector.Turns, clusters []collector.Cluster) []collector.Cluster {
	hashes := make(map[string]uint64, len(clusters))
	for _, c := range clusters {
		hashes[c.ID] = turns.Hash(c.ID)
	}
	slices.SortFunc(clusters, func(a, b collector.Cluster) int {
		return cmp.Or(cmp.Compare(hashes[a.ID], hashes[b.ID]), cmp.Compare(a.ID, b.ID))
	})
	return collector.RoundRobin(turns, clusters, collector.Cluster.Owner)
}

// listLanes lists both lanes at once, each with its own workers (see listNodes), and returns
// every cluster's node list, marked slow where it took longer than slow.
func listLanes(ctx context.Context, l lanes, lister NodeLister, listed prometheus.Observer, concurrency, hangingConcurrency int, slow time.Duration, logger *slog.Logger) map[string]collector.NodeList {
	var waited map[string]collector.NodeList
	var wg sync.WaitGroup
	wg.Go(func() { waited = listNodes(ctx, l.slow, lister, listed, hangingConcurrency, slow, logger) })
	out := listNodes(ctx, l.answering, lister, listed, concurrency, slow, logger)
	wg.Wait()
	for id, nl := range waited {
		out[id] = nl
	}
	return out
}
