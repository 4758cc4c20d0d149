package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func testSnapshot() *Snapshot {
	end := time.Unix(1780000000, 0)
	return &Snapshot{
		Start: end.Add(-1500 * time.Millisecond), End: end, Success: true, Enabled: true, LastSuccess: end,
		Cycles: 3, CycleFailures: 1,
		KubectlFailures: map[string]uint64{"timeout": 2},
		Clusters: []ClusterStatus{
			{
				Cluster: Cluster{ID: "k1", Name: "test", ZoneName: "zone1", Account: "alice", Domain: "ROOT", State: "Alert", ClusterType: "CloudManaged"},
				Checked: true, KubectlReachable: true,
				VM:   []Finding{{Kind: KindUnmappedVM, VMID: "w2", VMName: "test-node-2"}},
				Node: []Finding{{Kind: KindNodeWithoutVM, VMName: "ghost"}},
			},
			{
				Cluster: Cluster{ID: "k2", Name: "busy", ZoneName: "zone1", Account: "bob", Domain: "ROOT", Project: "p", State: "Scaling", ClusterType: "CloudManaged"},
			},
		},
	}
}

func TestMetricsExposition(t *testing.T) {
	m := NewMetrics(testSnapshot)
	want := `
# HELP cks_drift_up 1 if the last check cycle read the clusters and VMs from CloudStack (cached from the last cycle).
# TYPE cks_drift_up gauge
cks_drift_up 1
# HELP cks_drift_cycle_duration_seconds Duration of the last completed check cycle in seconds (cached from the last cycle).
# TYPE cks_drift_cycle_duration_seconds gauge
cks_drift_cycle_duration_seconds 1.5
# HELP cks_drift_cluster_checked 1 if the cluster was checked in the last cycle, 0 if it was skipped (cached).
# TYPE cks_drift_cluster_checked gauge
cks_drift_cluster_checked{cluster_id="k1",cluster_name="test"} 1
cks_drift_cluster_checked{cluster_id="k2",cluster_name="busy"} 0
# HELP cks_drift_finding One series per active finding of VM map drift (cached from the last cycle).
# TYPE cks_drift_finding gauge
cks_drift_finding{cluster_id="k1",cluster_name="test",kind="node_without_vm",vm_id="",vm_name="ghost"} 1
cks_drift_finding{cluster_id="k1",cluster_name="test",kind="unmapped_vm",vm_id="w2",vm_name="test-node-2"} 1
# HELP cks_drift_findings Active findings of VM map drift per cluster and kind (cached from the last cycle).
# TYPE cks_drift_findings gauge
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="mapped_vm_expunged"} 0
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="mapped_vm_missing"} 0
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="node_without_vm"} 1
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="unmapped_vm"} 1
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="vm_map_incomplete"} 0
cks_drift_findings{cluster_id="k1",cluster_name="test",kind="vm_not_a_node"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="mapped_vm_expunged"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="mapped_vm_missing"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="node_without_vm"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="unmapped_vm"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="vm_map_incomplete"} 0
cks_drift_findings{cluster_id="k2",cluster_name="busy",kind="vm_not_a_node"} 0
# HELP cks_drift_cluster_info Every CKS cluster seen in the last successful cycle, with its attributes (cached).
# TYPE cks_drift_cluster_info gauge
cks_drift_cluster_info{account="alice",cluster_id="k1",cluster_name="test",cluster_type="CloudManaged",domain="ROOT",project="",state="Alert",zone_name="zone1"} 1
cks_drift_cluster_info{account="bob",cluster_id="k2",cluster_name="busy",cluster_type="CloudManaged",domain="ROOT",project="p",state="Scaling",zone_name="zone1"} 1
# HELP cks_drift_kubectl_failures_total Node listings with kubectl over SSH that failed, by reason, since the exporter started.
# TYPE cks_drift_kubectl_failures_total counter
cks_drift_kubectl_failures_total{reason="timeout"} 2
`
	names := []string{"cks_drift_up", "cks_drift_cycle_duration_seconds", "cks_drift_cluster_checked", "cks_drift_finding",
		"cks_drift_findings", "cks_drift_cluster_info", "cks_drift_kubectl_failures_total"}
	if err := testutil.CollectAndCompare(m, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestMetricsLint(t *testing.T) {
	problems, err := testutil.CollectAndLint(NewMetrics(testSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestMetricsEmptySnapshot(t *testing.T) {
	m := NewMetrics(func() *Snapshot { return nil })
	if n := testutil.CollectAndCount(m, "cks_drift_up"); n != 1 {
		t.Errorf("cks_drift_up series = %d, want 1 before the first cycle", n)
	}
	if n := testutil.CollectAndCount(m, "cks_drift_finding"); n != 0 {
		t.Errorf("cks_drift_finding series = %d, want 0", n)
	}
}
