package collector

import (
	"slices"
	"sort"
	"time"
)

// ClusterStatus is what the last cycles know of one cluster.
type ClusterStatus struct {
	Cluster Cluster
	// Checked is true when the cluster was compared in the last cycle, false when it was skipped
	// (state other than Running or Alert, or ExternalManaged); a skipped cluster keeps its findings.
	Checked bool
	// Nodes is the outcome of the cluster's last node listing: this cycle's for a checked
	// cluster (Err "not_listed" when none was made), kept as it was for a skipped one, and never
	// read for a cluster not yet checked. Its Detail says more, for operators: one short
	// sanitised line (the first line of kubectl's stderr, the offered and expected host keys,
	// ...).
	Nodes NodeList
	// found holds the findings by side (On, Set, Add), accepted ones excepted.
	found map[Side][]Finding
	// Accepted holds the findings of any side that an operator's rule accepts (see Accept): on
	// no side, so never announced nor counted as drift.
	Accepted []AcceptedFinding
	// StateSince is when the cluster entered its current state (Cluster.State), as far as the
	// exporter knows: the first cycle that saw it there, and no later than what the state file
	// remembers (see MarkStates). A skipped cluster has been skipped since then.
	StateSince time.Time

	// OfferingsRead: this cycle read the service offerings (Inventory.Offerings.Read), so the
	// cluster side could be compared.
	OfferingsRead bool

	// ReadAt is when the cluster's CloudStack side was read, conservatively: the start of the
	// sweep or re-check that read it. Of two statuses of a cluster, the later read wins (Merge).
	ReadAt time.Time
}

// NodesEvaluated reports whether the node side was compared in this cycle: the cluster was
// checked and its nodes were read. Only then can a node finding have cleared.
func (s ClusterStatus) NodesEvaluated() bool { return s.Checked && s.Nodes.Read() }

// NetworkEvaluated reports whether the network side was compared in this cycle: the cluster was
// checked and the rules of its network were read. Only then can a network finding have cleared.
func (s ClusterStatus) NetworkEvaluated() bool { return s.Checked && s.Cluster.Rules.Read() }

// OfferingsEvaluated reports whether the cluster side was compared in this cycle: the cluster
// was checked and the service offerings were read. Only then can an offering finding have
// cleared.
func (s ClusterStatus) OfferingsEvaluated() bool { return s.Checked && s.OfferingsRead }

// Findings returns every side's findings, in the order of SideDeclarations.
func (s ClusterStatus) Findings() []Finding {
	var out []Finding
	for _, side := range Sides {
		out = append(out, s.found[side]...)
	}
	return out
}

// Snapshot is the outcome of the last completed cycle; metrics and /findings are built from it
// alone, so that a scrape never waits for CloudStack or SSH.
type Snapshot struct {
	Start   time.Time
	End     time.Time
	Success bool   // the inventory was read
	Error   string // why it was not
	Enabled bool
	// Interval is check.interval of the configuration the cycle ran with, exported so that the
	// stale alert compares a cycle's age with it instead of a number written into the rule.
	Interval time.Duration
	Shard    Shard
	Clusters []ClusterStatus // by name, then id; only the shard's
	// FindingSeriesLimit bounds the cks_drift_finding series of one cluster
	// (check.max_finding_series_per_cluster); 0: no bound.
	FindingSeriesLimit int

	LastSuccess   time.Time
	Cycles        uint64
	CycleFailures uint64
	// FailedInARow counts the cycles in a row, up to this one, that could not read the inventory,
	// and FailingSince is the start of the first of them; both are zero after a cycle that read it.
	FailedInARow     uint64
	FailingSince     time.Time
	NodeListFailures map[string]uint64 // by reason, since start
	// AcceptRules says what each accept rule did in the last cycle that read the inventory.
	AcceptRules []RuleReport
	// Resolved is the history of recently resolved findings, newest first (RecordResolved).
	Resolved []Resolved
}

// Evaluate compares every cluster of the inventory and carries over what must not change: a
// skipped cluster keeps its findings and reachability; a cluster whose nodes could not be listed
// keeps its node-side findings. First-seen times survive from prev. Clusters gone from the
// inventory are dropped.
func Evaluate(prev []ClusterStatus, inv Inventory, nodes map[string]NodeList, now time.Time, grace time.Duration) []ClusterStatus {
	return EvaluateShard(prev, inv, nodes, now, grace, Shard{}, nil)
}

// EvaluateShard is Evaluate for the clusters of one shard, checked and skipped as Plan decides,
// with what memory remembers of a finding that prev does not have (see carryFirstSeen). VMs
// mapped by clusters of other shards still count as mapped, so a shard never takes another
// shard's VM for unmapped.
func EvaluateShard(prev []ClusterStatus, inv Inventory, nodes map[string]NodeList, now time.Time, grace time.Duration, shard Shard, memory FirstSeenMemory) []ClusterStatus {
	return evaluate(prev, inv, nodes, now, grace, shard, memory, nil)
}

// evaluate is EvaluateShard for the clusters only names, or all of them when only is nil.
func evaluate(prev []ClusterStatus, inv Inventory, nodes map[string]NodeList, now time.Time, grace time.Duration, shard Shard, memory FirstSeenMemory, only map[string]bool) []ClusterStatus {
	before := make(map[string]ClusterStatus, len(prev))
	for _, s := range prev {
		before[s.Cluster.ID] = s
	}
	idx := NewIndex(inv)
	checked, skipped := Plan(inv, shard)
	if only != nil {
		checked, skipped = among(checked, only), among(skipped, only)
	}
	out := make([]ClusterStatus, 0, len(checked)+len(skipped))
	for _, c := range skipped {
		p := before[c.ID].withAccepted() // the rules are applied afresh to every finding
		s := ClusterStatus{Cluster: c, Nodes: p.Nodes}
		s.keepUncompared(p, memory, now)
		out = append(out, s)
	}
	for _, c := range checked {
		p := before[c.ID].withAccepted()
		nl, listed := nodes[c.ID]
		if !listed {
			nl = NodeList{Err: "not_listed"}
		}
		res := Compare(c, idx, nl, now, grace)
		s := ClusterStatus{Cluster: c, Checked: true, Nodes: nl, OfferingsRead: inv.Offerings.Read}
		s.Set(SideVM, res.VM)
		s.Set(SideNode, res.Node)
		s.Set(SideNetwork, CompareRules(c, now, grace))
		s.Set(SideCluster, compareOfferings(c, inv.Offerings))
		s.keepUncompared(p, memory, now)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cluster.Name != out[j].Cluster.Name {
			return out[i].Cluster.Name < out[j].Cluster.Name
		}
		return out[i].Cluster.ID < out[j].Cluster.ID
	})
	return out
}

// keepUncompared gives each side that this cycle did not compare (SideDeclaration.Compared) the
// findings p had (the previous snapshot is still being served), and each side it compared the
// first-seen times of p's (carryFirstSeen). The operation side is MarkStates'.
func (s *ClusterStatus) keepUncompared(p ClusterStatus, memory FirstSeenMemory, now time.Time) {
	for _, d := range SideDeclarations {
		switch {
		case d.Side == SideOperation:
		case d.Compared(*s):
			carryFirstSeen(s.Cluster.ID, d.Side, s.On(d.Side), p.On(d.Side), memory, now)
		default:
			s.Set(d.Side, slices.Clone(p.On(d.Side)))
		}
	}
}

// withAccepted returns s with its accepted findings back on their sides, as the engine found them.
func (s ClusterStatus) withAccepted() ClusterStatus {
	if len(s.Accepted) == 0 {
		return s
	}
	for _, a := range s.Accepted {
		s.Add(a.Finding)
	}
	s.Accepted = nil
	for side, fs := range s.found {
		fs = slices.Clone(fs)
		sortFindings(fs)
		s.found[side] = fs // s.found is Add's copy, s's own
	}
	return s
}
