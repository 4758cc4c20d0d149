package collector

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestSidesNotCompared: cks_drift_sides_not_compared counts the checked clusters whose side was
// not compared: the network side of a cluster whose rules could not be read (a missing grant) or
// were not read at all, the cluster side without the offerings, the node side without the node
// list; a skipped cluster counts for none.
func TestSidesNotCompared(t *testing.T) {
	t.Parallel()
	s := &Snapshot{Clusters: []ClusterStatus{
		{Cluster: Cluster{ID: "k1", Rules: &NetworkRules{Type: NetworkIsolated}}, Checked: true, Nodes: NodesRead(nil, nil), OfferingsRead: true},
		{Cluster: Cluster{ID: "k2", Rules: &NetworkRules{Err: "the database account may not read load_balancer_vm_map"}}, Checked: true, Nodes: NodeList{Err: "timeout"}, OfferingsRead: true},
		{Cluster: Cluster{ID: "k3"}, Checked: true, Nodes: NodesRead(nil, nil)},
		{Cluster: Cluster{ID: "k4", State: "Scaling"}},
		{Cluster: Cluster{ID: "k5", Rules: &NetworkRules{Err: ErrNetworkNotListed}}, Checked: true, Nodes: NodesRead(nil, nil), OfferingsRead: true},
	}}
	want := `# HELP cks_drift_sides_not_compared ` + notComparedHelp + `
# TYPE cks_drift_sides_not_compared gauge
cks_drift_sides_not_compared{side="cluster"} 1
cks_drift_sides_not_compared{side="network"} 2
cks_drift_sides_not_compared{side="node"} 1
cks_drift_sides_not_compared{side="operation"} 0
cks_drift_sides_not_compared{side="vm"} 0
`
	if err := testutil.CollectAndCompare(NewMetrics(func() *Snapshot { return s }), strings.NewReader(want), "cks_drift_sides_not_compared"); err != nil {
		t.Error(err)
	}
}
