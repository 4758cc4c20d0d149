package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/golden"
)

// TestWriteTable prints the --once table of fixed reports and compares it with
// testdata/once-*.golden (go test -run TestWriteTable -update rewrites them).
func TestWriteTable(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 6, 5, 20, 35, 31, 0, time.UTC)
	drift := &collector.Snapshot{
		Start: end.Add(-2 * time.Second), End: end, Success: true, Enabled: true, LastSuccess: end,
		Clusters: []collector.ClusterStatus{
			collector.ClusterStatus{
				Cluster: collector.Cluster{ID: "k1", Name: "test", ZoneName: "zone1", Account: "admin", Domain: "ROOT", State: "Alert", ClusterType: "CloudManaged"},
				Checked: true, Nodes: collector.NodesRead(nil, nil),
			}.With(
				collector.Finding{Kind: collector.KindUnmappedVM, VMID: "2b7607ac", VMName: "test-node-1a1c6ebf01d", Message: "VM test-node-1a1c6ebf01d (2b7607ac, Running) is named as a node of Kubernetes cluster test but is not one of its VMs in CloudStack"},
				collector.Finding{Kind: collector.KindMappedVMMissing, VMID: "999999", Message: "VM with ID 999999 is one of the VMs of Kubernetes cluster test in CloudStack, but does not exist"},
				collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: "ghost", Message: "Kubernetes node ghost of cluster test has no VM in CloudStack"},
			),
			{
				Cluster: collector.Cluster{ID: "k2", Name: "unreachable", ZoneName: "zone1", Account: "admin", Domain: "ROOT", State: "Running", ClusterType: "CloudManaged"},
				Checked: true, Nodes: collector.NodeList{Err: "timeout"},
			},
			{
				Cluster: collector.Cluster{ID: "k3", Name: "busy", ZoneName: "zone1", Account: "bob", Domain: "ROOT", State: "Scaling", ClusterType: "CloudManaged"},
			},
		},
	}
	failed := &collector.Snapshot{Start: end.Add(-time.Second), End: end, Enabled: true, Error: "list clusters: CloudStack API error 530"}
	clean := &collector.Snapshot{Start: end.Add(-time.Second), End: end, Success: true, Enabled: true, LastSuccess: end,
		Clusters: []collector.ClusterStatus{drift.Clusters[1], drift.Clusters[2], {
			Cluster: collector.Cluster{ID: "k4", Name: "fine", ZoneName: "zone1", Account: "admin", Domain: "ROOT", State: "Running", ClusterType: "CloudManaged"},
			Checked: true, Nodes: collector.NodesRead(nil, nil),
		}}}
	for _, tc := range []struct {
		name string
		snap *collector.Snapshot
		wide bool
	}{
		{"drift", drift, false},
		{"drift-wide", drift, true},
		{"failed", failed, false},
		{"clean", clean, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			WriteTable(&b, New(tc.snap, Context{}), tc.wide)
			golden.Assert(t, "testdata/once-"+tc.name+".golden", b.Bytes())
		})
	}
}
