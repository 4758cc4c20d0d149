package notifier

import (
	"cmp"
	"slices"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The alert cap is shared by every tenant, so it is handed out in turns (collector.RoundRobin):
// in one pass no owner gets a second alert while another owner with a new finding has none, and
// no cluster a second while another cluster of the same owner has none. A tenant cannot choose
// its place: the turns are in the order of a hash keyed with the process's secret and the pass,
// not of names it picks (a cluster named "0" once took the whole cap every cycle). Within a
// cluster the oldest finding goes first (first_seen, then its key), so one that waited is not
// passed over for the newest names; that order only ranks a tenant's findings against its own.
//
// Alert types are held per open finding, and the range is finite: a cluster that keeps its old
// findings and adds new ones each cycle once held the whole range. So a cluster never holds more
// than MaxAlertsPerCycle types at once; past that its new findings go into the summary alert.

// alertPick is what pickAlerts decided for the findings whose alert is owed.
type alertPick struct {
	send      map[*announcement]bool // alerted one by one in this pass
	overDay   map[*announcement]bool // not alerted: the cluster used up its 24-hour budget
	perDayUse map[string]int         // alerts picked by cluster id, taken from its 24-hour budget
}

// alertCandidate is one finding whose alert is owed.
type alertCandidate struct {
	clusterID, owner string
	a                *announcement
}

// pickAlerts chooses, in turns, at most room findings to alert one by one. A cluster's findings
// past its share of the types or past its 24-hour budget are never picked.
func (n *Notifier) pickAlerts(room int) alertPick {
	p := alertPick{send: make(map[*announcement]bool), overDay: make(map[*announcement]bool), perDayUse: make(map[string]int)}
	var eligible []alertCandidate
	for id, cs := range n.state.Clusters {
		held := 0
		var owed []*announcement
		keys := make(map[*announcement]string)
		for _, ss := range cs.Sides {
			for key, a := range ss.Findings {
				if a.AlertType != 0 {
					held++
				}
				if !a.Alert.Done {
					owed = append(owed, a)
					keys[a] = key
				}
			}
		}
		slices.SortFunc(owed, func(x, y *announcement) int {
			return cmp.Or(x.FirstSeen.Compare(y.FirstSeen), cmp.Compare(keys[x], keys[y]))
		})
		share := max(n.opts.MaxAlertsPerCycle-held, 0) // new types the cluster may take
		budget := n.dayLeft(id)
		for _, a := range owed {
			switch {
			case budget == 0 && n.dayLeft(id) == 0:
				p.overDay[a] = true
			case budget == 0: // the rest of the budget is for the findings before: the summary counts it
			case a.AlertType != 0: // a retry: it holds its type already
				budget--
				eligible = append(eligible, alertCandidate{clusterID: id, owner: cs.Owner, a: a})
			case share > 0:
				share--
				budget--
				eligible = append(eligible, alertCandidate{clusterID: id, owner: cs.Owner, a: a})
			}
		}
	}
	// Map iteration gave the clusters in a random order; RoundRobin needs each group's items in
	// their own order, which the sort within a cluster and the stable turns keep.
	slices.SortStableFunc(eligible, func(x, y alertCandidate) int { return cmp.Compare(x.clusterID, y.clusterID) })
	eligible = collector.RoundRobin(n.turns, eligible, func(c alertCandidate) string { return c.clusterID })
	eligible = collector.RoundRobin(n.turns, eligible, func(c alertCandidate) string { return c.owner })
	for _, c := range eligible[:min(max(room, 0), len(eligible))] {
		p.send[c.a] = true
		p.perDayUse[c.clusterID]++
	}
	return p
}
