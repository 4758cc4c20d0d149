package collector

import "github.com/prometheus/client_golang/prometheus"

// notComparedDesc counts, per side, the checked clusters whose side the last cycle could not
// compare: its source could not read what the side compares (the rules of the cluster's network,
// the service offerings, the node list). Such a side keeps its findings as they were, so without
// this gauge a side that is never read (a role without listFirewallRules, a database account
// granted before the network side) would look like one without drift.
var notComparedDesc = desc("sides_not_compared", notComparedHelp, "side")

const notComparedHelp = "Clusters checked in the last cycle whose side was not compared, by side: what the side compares could not be read (the network side's rules, the cluster side's service offerings, the node side's node list), so its findings were kept as they were (cached from the last cycle). A cluster whose network CloudStack does not show has no rules to compare and is not counted."

// Unread reports whether the cycle that made s checked its cluster but could not compare the side
// because what it compares could not be read. A cluster whose network its source does not show
// (none, or removed: ErrNetworkNotListed) has no rules to compare: nothing failed, so it is not
// counted, or every such cluster would report a failure for as long as it exists.
func (d SideDeclaration) Unread(s ClusterStatus) bool {
	if !s.Checked || d.Compared(s) {
		return false
	}
	return d.Side != SideNetwork || s.Cluster.Rules == nil || s.Cluster.Rules.Err != ErrNetworkNotListed
}

// notCompared is the family of notComparedDesc: one series per declared side.
func notCompared(emit emitter, s *Snapshot, _ ClusterStatus) {
	for _, d := range SideDeclarations {
		n := 0
		for _, cs := range s.Clusters {
			if d.Unread(cs) {
				n++
			}
		}
		emit(prometheus.GaugeValue, float64(n), string(d.Side))
	}
}
