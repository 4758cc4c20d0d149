package collector

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/golden"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

func testSnapshot() *Snapshot {
	end := time.Unix(1780000000, 0)
	return &Snapshot{
		Start: end.Add(-1500 * time.Millisecond), End: end, Success: true, Enabled: true, Interval: 5 * time.Minute, LastSuccess: end,
		Cycles: 3, CycleFailures: 1,
		NodeListFailures: map[string]uint64{"timeout": 2},
		Clusters: []ClusterStatus{
			ClusterStatus{
				Cluster: Cluster{ID: "k1", Name: "test", ZoneName: "zone1", Account: "alice", Domain: "ROOT", State: "Alert", ClusterType: "CloudManaged"},
				Checked: true, Nodes: NodesRead(nil, nil),
			}.With(Finding{Kind: KindUnmappedVM, VMID: "w2", VMName: "test-node-2"}, Finding{Kind: KindNodeWithoutVM, VMName: "ghost"}),
			{
				Cluster: Cluster{ID: "k3", Name: "dark", ZoneName: "zone2", Account: "alice", Domain: "ROOT", State: "Running", ClusterType: "CloudManaged"},
				Checked: true, Nodes: NodeList{Err: "timeout"},
			},
			ClusterStatus{
				Cluster:    Cluster{ID: "k2", Name: "busy", ZoneName: "zone1", Account: "bob", Domain: "ROOT", Project: "p", State: "Scaling", ClusterType: "CloudManaged"},
				StateSince: end.Add(-2 * time.Hour),
			}.With(Finding{Kind: KindStuckInOperation}),
		},
	}
}

// TestMetricsExposition compares the exposition of a fixed snapshot with
// testdata/metrics.golden (go test -run TestMetricsExposition -update rewrites it).
func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	names := []string{"cks_drift_up", "cks_drift_check_interval_seconds", "cks_drift_cycle_duration_seconds", "cks_drift_cluster_checked", "cks_drift_finding",
		"cks_drift_findings", "cks_drift_cluster_info", "cks_drift_kubectl_failures_total", "cks_drift_cluster_status", "cks_drift_cluster_state_since_timestamp_seconds"}
	got, err := testutil.CollectAndFormat(NewMetrics(testSnapshot), expfmt.TypeTextPlain, names...)
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/metrics.golden", got)
}

func TestMetricsLint(t *testing.T) {
	t.Parallel()
	problems, err := testutil.CollectAndLint(NewMetrics(testSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestMetricsEmptySnapshot(t *testing.T) {
	t.Parallel()
	m := NewMetrics(func() *Snapshot { return nil })
	if n := testutil.CollectAndCount(m, "cks_drift_up"); n != 1 {
		t.Errorf("cks_drift_up series = %d, want 1 before the first cycle", n)
	}
	if n := testutil.CollectAndCount(m, "cks_drift_finding"); n != 0 {
		t.Errorf("cks_drift_finding series = %d, want 0", n)
	}
}
