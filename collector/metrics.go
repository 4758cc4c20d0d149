package collector

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "cks_drift"

// The HELP texts say that values are cached: a scrape reads the last completed cycle only.
var (
	upDesc          = desc("up", "1 if the last check cycle read the clusters and VMs from CloudStack (cached from the last cycle).")
	enabledDesc     = desc("check_enabled", "1 if the check is enabled in the configuration (check.enabled).")
	durationDesc    = desc("cycle_duration_seconds", "Duration of the last completed check cycle in seconds (cached from the last cycle).")
	lastSuccessDesc = desc("last_cycle_success_timestamp_seconds", "Unix time at which the last successful check cycle ended.")
	cyclesDesc      = desc("cycles_total", "Check cycles run since the exporter started.")
	cycleFailDesc   = desc("cycle_failures_total", "Check cycles that could not read the inventory from CloudStack since the exporter started.")
	clusterInfoDesc = desc("cluster_info", "Every CKS cluster seen in the last successful cycle, with its attributes (cached).", "cluster_id", "cluster_name", "zone_name", "account", "domain", "project", "state", "cluster_type")
	checkedDesc     = desc("cluster_checked", "1 if the cluster was checked in the last cycle, 0 if it was skipped (cached).", "cluster_id", "cluster_name")
	reachableDesc   = desc("kubectl_reachable", "1 if the cluster's node list was read with kubectl in its last check (cached).", "cluster_id", "cluster_name")
	findingsDesc    = desc("findings", "Active findings of VM map drift per cluster and kind (cached from the last cycle).", "cluster_id", "cluster_name", "kind")
	findingDesc     = desc("finding", "One series per active finding of VM map drift (cached from the last cycle).", "cluster_id", "cluster_name", "kind", "vm_id", "vm_name")
	kubectlFailDesc = desc("kubectl_failures_total", "Node listings with kubectl over SSH that failed, by reason, since the exporter started.", "reason")
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
	for _, d := range []*prometheus.Desc{upDesc, enabledDesc, durationDesc, lastSuccessDesc, cyclesDesc, cycleFailDesc,
		clusterInfoDesc, checkedDesc, reachableDesc, findingsDesc, findingDesc, kubectlFailDesc,
		shardDesc, totalShardsDesc, statusDesc} {
		ch <- d
	}
}

// Collect builds the metrics of the current snapshot.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	s := m.snapshot()
	if s == nil {
		s = &Snapshot{}
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(upDesc, boolValue(s.Success))
	gauge(enabledDesc, boolValue(s.Enabled))
	if !s.End.IsZero() {
		gauge(durationDesc, s.End.Sub(s.Start).Seconds())
	}
	if !s.LastSuccess.IsZero() {
		gauge(lastSuccessDesc, float64(s.LastSuccess.UnixNano())/1e9)
	}
	gauge(shardDesc, float64(s.Shard.Ordinal))
	gauge(totalShardsDesc, float64(max(s.Shard.Total, 1)))
	counter(cyclesDesc, s.Cycles)
	counter(cycleFailDesc, s.CycleFailures)

	for _, cs := range s.Clusters {
		c := cs.Cluster
		gauge(clusterInfoDesc, 1, c.ID, c.Name, c.ZoneName, c.Account, c.Domain, c.Project, c.State, c.ClusterType)
		gauge(checkedDesc, boolValue(cs.Checked), c.ID, c.Name)
		gauge(reachableDesc, boolValue(cs.KubectlReachable), c.ID, c.Name)
		status, reason := cs.Status()
		gauge(statusDesc, 1, c.ID, c.Name, status, reason)
		perKind := make(map[Kind]int, len(Kinds))
		for _, f := range cs.Findings() {
			perKind[f.Kind]++
			gauge(findingDesc, 1, c.ID, c.Name, string(f.Kind), f.VMID, f.VMName)
		}
		for _, k := range Kinds {
			gauge(findingsDesc, float64(perKind[k]), c.ID, c.Name, string(k))
		}
	}

	for _, reason := range sortedKeys(s.KubectlFailures) {
		counter(kubectlFailDesc, s.KubectlFailures[reason], reason)
	}
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
