package exporter

import (
	"fmt"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// TestEventIndexRules: an event naming a rule of a cluster's network re-checks that cluster only;
// rules that cannot be CKS's (a port-forwarding rule to port 80) and rules past maxRuleIDs are not
// indexed, nor the rules of a cluster whose rules were not read.
func TestEventIndexRules(t *testing.T) {
	t.Parallel()
	id := func(n int) string { return fmt.Sprintf("5e5e0000-0000-4000-8000-%012x", n) }
	noisy := &collector.NetworkRules{Type: collector.NetworkIsolated}
	for i := range 1000 {
		noisy.Firewall = append(noisy.Firewall, collector.FirewallRule{ID: id(1000 + i), Protocol: "tcp", StartPort: 80, EndPort: 80})
	}
	snap := &collector.Snapshot{Clusters: []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: id(1), Name: "alpha", Account: "acme", Rules: &collector.NetworkRules{Type: collector.NetworkIsolated,
			Forwarding: []collector.ForwardingRule{{ID: id(11), PrivatePort: 22}, {ID: id(12), PrivatePort: 80}},
			Balancing:  []collector.BalancingRule{{ID: id(13), PublicPort: 6443}}, ACL: []collector.ACLItem{{ID: id(14)}}}}},
		{Cluster: collector.Cluster{ID: id(2), Name: "beta", Account: "globex", Rules: noisy}},
		{Cluster: collector.Cluster{ID: id(3), Name: "gamma", Account: "initech", Rules: &collector.NetworkRules{Err: "unread",
			Forwarding: []collector.ForwardingRule{{ID: id(31), PrivatePort: 22}}}}},
	}}
	x := newEventIndex(snap)
	for _, tc := range []struct {
		rule string
		want string
	}{{id(11), "alpha"}, {id(13), "alpha"}, {id(14), "alpha"}, {id(12), ""}, {id(1000), "beta"}, {id(1000 + maxRuleIDs), ""}, {id(31), ""}} {
		got := x.clusters(events.Event{EntityID: tc.rule})
		name := ""
		if len(got) == 1 {
			for _, cs := range snap.Clusters {
				if cs.Cluster.ID == got[0].clusterID {
					name = cs.Cluster.Name
				}
			}
		}
		if len(got) > 1 || name != tc.want {
			t.Errorf("rule %s: clusters %v, want %q", tc.rule, got, tc.want)
		}
	}
}
