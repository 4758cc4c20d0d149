package collector

import (
	"cmp"
	"slices"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "cks_drift"

// The HELP texts say that values are cached: a scrape reads the last completed cycle only.
var (
	upDesc          = desc("up", "1 if the last check cycle read the clusters and VMs from CloudStack (cached from the last cycle).")
	enabledDesc     = desc("check_enabled", "1 if the check is enabled in the configuration (check.enabled).")
	intervalDesc    = desc("check_interval_seconds", "Time between the starts of two check cycles in seconds (check.interval of the configuration the last cycle ran with).")
	durationDesc    = desc("cycle_duration_seconds", "Duration of the last completed check cycle in seconds (cached from the last cycle).")
	lastSuccessDesc = desc("last_cycle_success_timestamp_seconds", "Unix time at which the last successful check cycle ended.")
	cyclesDesc      = desc("cycles_total", "Check cycles run since the exporter started.")
	cycleFailDesc   = desc("cycle_failures_total", "Check cycles that could not read the inventory from CloudStack since the exporter started.")
	clusterInfoDesc = desc("cluster_info", "Every CKS cluster seen in the last successful cycle, with its attributes (cached).", "cluster_id", "cluster_name", "zone_name", "account", "domain", "project", "state", "cluster_type")
	stateSinceDesc  = desc("cluster_state_since_timestamp_seconds", "Unix time since which the cluster has been in its current state (the state label of cks_drift_cluster_info), as far as the exporter knows: the first cycle that saw it there (kept across restarts for an operation state such as Scaling), or earlier where CloudStack records when the operation started (cached from the last cycle).", "cluster_id", "cluster_name")
	checkedDesc     = desc("cluster_checked", "1 if the cluster was checked in the last cycle, 0 if it was skipped (cached).", "cluster_id", "cluster_name")
	reachableDesc   = desc("kubectl_reachable", "1 if the cluster's node list was read with kubectl in its last check (cached).", "cluster_id", "cluster_name")
	findingsDesc    = desc("findings", "Active findings of VM map drift per cluster and kind (cached from the last cycle).", "cluster_id", "cluster_name", "kind")
	findingDesc     = desc("finding", "One series per active finding of VM map drift, at most check.max_finding_series_per_cluster per cluster, its oldest (cached from the last cycle).", "cluster_id", "cluster_name", "kind", "vm_id", "vm_name")
	omittedDesc     = desc("finding_series_omitted", "Active findings of the cluster left out of cks_drift_finding by check.max_finding_series_per_cluster; only when some are (cached from the last cycle).", "cluster_id", "cluster_name")
	kubectlFailDesc = desc("kubectl_failures_total", "Node listings with kubectl over SSH that failed, by reason, since the exporter started.", "reason")
	acceptedDesc    = desc("accepted_findings", "Findings an operator's accept rule accepts, per cluster and kind, not in cks_drift_finding and never announced; kinds without one are left out (cached from the last cycle).", "cluster_id", "cluster_name", "kind")
	acceptRulesDesc = desc("accept_rules", "The configuration's accept rules by what they did in the last cycle: matched (accepts a finding), unmatched, expired (past until) or ambiguous (a cluster name that several clusters have, so it accepts nothing) (cached from the last cycle).", "state")
	shardDesc       = desc("shard_ordinal", "The shard of the clusters this replica checks (check.shard).")
	totalShardsDesc = desc("total_shards", "The number of shards the clusters are split into (check.total_shards).")
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
}

// Metrics exposes the last snapshot as const metrics, so that nothing of an older snapshot
// survives a swap and a scrape costs no I/O.
type Metrics struct {
	snapshot func() *Snapshot
}

// NewMetrics returns a collector over the snapshot that load returns at each scrape.
func NewMetrics(load func() *Snapshot) *Metrics {
	return &Metrics{snapshot: load}
}

// Describe sends every descriptor.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range families {
		ch <- f.desc
	}
}

// Collect builds the metrics of the current snapshot.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	s := m.load()
	for _, f := range families {
		f.collect(ch, s, nil)
	}
}

func (m *Metrics) load() *Snapshot {
	if s := m.snapshot(); s != nil {
		return s
	}
	return &Snapshot{}
}

// Chunks returns collectors that together collect what m does, in the order of an exposition:
// one family at a time, by name, and a family of per-cluster series in parts of at most size
// clusters, in the order a registry sorts their series. Gathered and encoded one after the
// other, they never hold more than one part's metrics at once: at ten thousand clusters the
// whole collection holds about a hundred thousand metrics at once.
func (m *Metrics) Chunks(size int) []prometheus.Collector {
	s := m.load()
	size = max(size, 1)
	var out []prometheus.Collector
	for _, f := range families {
		if !f.perCluster {
			out = append(out, chunk{f: f, s: s})
			continue
		}
		order := make([]int, len(s.Clusters))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return f.order(s.Clusters[a], s.Clusters[b]) })
		for from := 0; from < len(order); from += size {
			out = append(out, chunk{f: f, s: s, clusters: order[from:min(from+size, len(order))]})
		}
	}
	return out
}

// chunk collects one family over some clusters (indexes into the snapshot's).
type chunk struct {
	f        family
	s        *Snapshot
	clusters []int
}

func (c chunk) Describe(ch chan<- *prometheus.Desc) { ch <- c.f.desc }

func (c chunk) Collect(ch chan<- prometheus.Metric) { c.f.collect(ch, c.s, c.clusters) }

// family is one metric family of the check.
type family struct {
	desc       *prometheus.Desc
	perCluster bool
	// order sorts clusters as a registry sorts the family's series: by label values, labels
	// sorted by name, so by cluster_id except where a label sorts before it.
	order func(a, b ClusterStatus) int
	// series sends the family's series of the snapshot (of one cluster, for perCluster).
	series func(emit emitter, s *Snapshot, cs ClusterStatus)
}

// emitter sends one series of a family.
type emitter func(t prometheus.ValueType, v float64, labels ...string)

// collect sends the family's series of the snapshot's clusters at the indexes given, or of all of
// them for nil.
func (f family) collect(ch chan<- prometheus.Metric, s *Snapshot, clusters []int) {
	emit := func(t prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(f.desc, t, v, labels...)
	}
	if !f.perCluster {
		f.series(emit, s, ClusterStatus{})
		return
	}
	if clusters == nil {
		for _, cs := range s.Clusters {
			f.series(emit, s, cs)
		}
		return
	}
	for _, i := range clusters {
		f.series(emit, s, s.Clusters[i])
	}
}

func byID(a, b ClusterStatus) int { return cmp.Compare(a.Cluster.ID, b.Cluster.ID) }

// families are the check's metric families, in the order an exposition lists them (by name;
// TestChunksMatchCollect holds it).
var families = []family{
	{desc: acceptRulesDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		perUse := map[RuleUse]int{}
		for _, r := range s.AcceptRules {
			perUse[r.Use]++
		}
		for _, u := range []RuleUse{RuleAmbiguous, RuleExpired, RuleMatched, RuleUnmatched} {
			emit(prometheus.GaugeValue, float64(perUse[u]), string(u))
		}
	}},
	{desc: acceptedDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		perKind := make(map[Kind]int)
		for _, a := range cs.Accepted {
			perKind[a.Kind]++
		}
		for _, k := range Kinds {
			if perKind[k] > 0 {
				emit(prometheus.GaugeValue, float64(perKind[k]), cs.Cluster.ID, cs.Cluster.Name, string(k))
			}
		}
	}},
	{desc: enabledDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) { emit(prometheus.GaugeValue, boolValue(s.Enabled)) }},
	{desc: intervalDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		if s.Interval > 0 {
			emit(prometheus.GaugeValue, s.Interval.Seconds())
		}
	}},
	{desc: checkedDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		emit(prometheus.GaugeValue, boolValue(cs.Checked), cs.Cluster.ID, cs.Cluster.Name)
	}},
	{desc: clusterInfoDesc, perCluster: true, order: func(a, b ClusterStatus) int { // "account" sorts before "cluster_id"
		return cmp.Or(cmp.Compare(a.Cluster.Account, b.Cluster.Account), byID(a, b))
	}, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		c := cs.Cluster
		emit(prometheus.GaugeValue, 1, c.ID, c.Name, c.ZoneName, c.Account, c.Domain, c.Project, c.State, c.ClusterType)
	}},
	{desc: stateSinceDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		if !cs.StateSince.IsZero() {
			emit(prometheus.GaugeValue, float64(cs.StateSince.UnixNano())/1e9, cs.Cluster.ID, cs.Cluster.Name)
		}
	}},
	{desc: statusDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		status, reason := cs.Status()
		emit(prometheus.GaugeValue, 1, cs.Cluster.ID, cs.Cluster.Name, status, reason)
	}},
	{desc: durationDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		if !s.End.IsZero() {
			emit(prometheus.GaugeValue, s.End.Sub(s.Start).Seconds())
		}
	}},
	{desc: cycleFailDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		emit(prometheus.CounterValue, float64(s.CycleFailures))
	}},
	{desc: cyclesDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) { emit(prometheus.CounterValue, float64(s.Cycles)) }},
	{desc: findingDesc, perCluster: true, order: byID, series: func(emit emitter, s *Snapshot, cs ClusterStatus) {
		shown, _ := findingSeries(cs, s.FindingSeriesLimit)
		for _, f := range shown {
			emit(prometheus.GaugeValue, 1, cs.Cluster.ID, cs.Cluster.Name, string(f.Kind), f.VMID, f.VMName)
		}
	}},
	{desc: omittedDesc, perCluster: true, order: byID, series: func(emit emitter, s *Snapshot, cs ClusterStatus) {
		if _, omitted := findingSeries(cs, s.FindingSeriesLimit); omitted > 0 {
			emit(prometheus.GaugeValue, float64(omitted), cs.Cluster.ID, cs.Cluster.Name)
		}
	}},
	{desc: findingsDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		perKind := make(map[Kind]int, len(Kinds))
		for _, f := range cs.Findings() {
			perKind[f.Kind]++
		}
		for _, k := range Kinds {
			emit(prometheus.GaugeValue, float64(perKind[k]), cs.Cluster.ID, cs.Cluster.Name, string(k))
		}
	}},
	{desc: kubectlFailDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		for _, reason := range sortedKeys(s.NodeListFailures) {
			emit(prometheus.CounterValue, float64(s.NodeListFailures[reason]), reason)
		}
	}},
	{desc: reachableDesc, perCluster: true, order: byID, series: func(emit emitter, _ *Snapshot, cs ClusterStatus) {
		emit(prometheus.GaugeValue, boolValue(cs.Nodes.Read()), cs.Cluster.ID, cs.Cluster.Name)
	}},
	{desc: lastSuccessDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		if !s.LastSuccess.IsZero() {
			emit(prometheus.GaugeValue, float64(s.LastSuccess.UnixNano())/1e9)
		}
	}},
	{desc: shardDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		emit(prometheus.GaugeValue, float64(s.Shard.Ordinal))
	}},
	{desc: notComparedDesc, series: notCompared},
	{desc: totalShardsDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) {
		emit(prometheus.GaugeValue, float64(max(s.Shard.Total, 1)))
	}},
	{desc: upDesc, series: func(emit emitter, s *Snapshot, _ ClusterStatus) { emit(prometheus.GaugeValue, boolValue(s.Success)) }},
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
