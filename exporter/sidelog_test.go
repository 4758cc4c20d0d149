package exporter

import (
	"maps"
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestSideGaps: a side counts as a gap where what it compares could not be read (a rule list's
// error, the offerings not listed), each reason once and at most maxGapReasons; a cluster whose
// network is not shown, one not checked, and the node side (logged per cluster) do not count.
func TestSideGaps(t *testing.T) {
	t.Parallel()
	status := func(id string, rules *collector.NetworkRules, offerings bool) collector.ClusterStatus {
		return collector.ClusterStatus{Cluster: collector.Cluster{ID: id, Name: id, Rules: rules}, Checked: true, OfferingsRead: offerings}
	}
	read := &collector.NetworkRules{}
	failed := func(err string) *collector.NetworkRules { return &collector.NetworkRules{Err: err} }
	unchecked := status("unchecked", failed("listFirewallRules: 432"), false)
	unchecked.Checked = false

	if g := sideGaps([]collector.ClusterStatus{status("a", read, true), status("gone", failed(collector.ErrNetworkNotListed), true), unchecked}); len(g) != 0 {
		t.Errorf("gaps %+v where every side that has something to compare was compared", g)
	}

	g := sideGaps([]collector.ClusterStatus{
		status("a", failed("e1"), true), status("b", failed("e2"), false), status("c", failed("e1"), true),
		status("d", failed("e3"), true), status("e", failed("e4"), true), status("gone", failed(collector.ErrNetworkNotListed), true),
	})
	net := g[collector.SideNetwork]
	if net.clusters != 5 || net.example.ID != "a" || !slices.Equal(net.reasons, []string{"e1", "e2", "e3"}) {
		t.Errorf("network gap %+v, want 5 clusters, a first, reasons e1 e2 e3", net)
	}
	if c := g[collector.SideCluster]; c.clusters != 1 || c.example.ID != "b" || len(c.reasons) != 0 {
		t.Errorf("cluster gap %+v, want b alone", c)
	}
	if _, ok := g[collector.SideNode]; ok || len(g) != 2 {
		t.Errorf("gaps of sides %v, want network and cluster only", slices.Collect(maps.Keys(g)))
	}
}
