package collector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestFindingSeriesBoundedPerCluster: a noisy cluster whose control node prints 250 fresh node
// names shows 100 cks_drift_finding series, its oldest, one cks_drift_finding_series_omitted
// series of 150, and its exact count in cks_drift_findings; the victim beside it shows its one
// finding and no omitted series.
func TestFindingSeriesBoundedPerCluster(t *testing.T) {
	t.Parallel()
	const fresh, limit = 250, 100
	start := time.Unix(1780000000, 0)
	noisy := ClusterStatus{Cluster: Cluster{ID: "n1", Name: "0", Account: "noisy"}, Checked: true, Nodes: NodesRead(nil, nil)}
	for i := range fresh {
		// The newest first, so the oldest are not simply the first ones.
		noisy.Add(Finding{Kind: KindNodeWithoutVM, VMName: fmt.Sprintf("fake-%03d", i), FirstSeen: start.Add(time.Duration(fresh-i) * time.Minute)})
	}
	victim := ClusterStatus{Cluster: Cluster{ID: "v1", Name: "prod", Account: "victim"}, Checked: true, Nodes: NodesRead(nil, nil)}.
		With(Finding{Kind: KindUnmappedVM, VMID: "w9", VMName: "prod-node-9", FirstSeen: start})
	snap := &Snapshot{Success: true, Enabled: true, FindingSeriesLimit: limit, Clusters: []ClusterStatus{noisy, victim}}
	m := NewMetrics(func() *Snapshot { return snap })

	if got := testutil.CollectAndCount(m, "cks_drift_finding"); got != limit+1 {
		t.Errorf("%d cks_drift_finding series, want %d of the noisy cluster and 1 of the victim", got, limit)
	}
	want := `# HELP cks_drift_finding_series_omitted Active findings of the cluster left out of cks_drift_finding by check.max_finding_series_per_cluster; only when some are (cached from the last cycle).
# TYPE cks_drift_finding_series_omitted gauge
cks_drift_finding_series_omitted{cluster_id="n1",cluster_name="0"} 150
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(want), "cks_drift_finding_series_omitted"); err != nil {
		t.Error(err)
	}
	shown, _ := findingSeries(noisy, limit)
	for _, f := range shown {
		if f.FirstSeen.After(start.Add((fresh - limit + 1) * time.Minute)) {
			t.Fatalf("series for %s (first seen %s), not one of the %d oldest", f.VMName, f.FirstSeen, limit)
		}
	}
	counts := `# HELP cks_drift_findings Active findings of VM map drift per cluster and kind (cached from the last cycle).
# TYPE cks_drift_findings gauge
`
	for _, id := range []struct{ id, name string }{{"n1", "0"}, {"v1", "prod"}} {
		for _, k := range Kinds {
			n := 0
			switch {
			case id.id == "n1" && k == KindNodeWithoutVM:
				n = fresh
			case id.id == "v1" && k == KindUnmappedVM:
				n = 1
			}
			counts += fmt.Sprintf("cks_drift_findings{cluster_id=%q,cluster_name=%q,kind=%q} %d\n", id.id, id.name, k, n)
		}
	}
	if err := testutil.CollectAndCompare(m, strings.NewReader(counts), "cks_drift_findings"); err != nil {
		t.Error(err)
	}
}
