package collector

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Read is what one sweep or re-check read of the clusters, to be merged into the statuses
// published meanwhile (Merge): its statuses, each with ReadAt set to At, and the clusters it
// found deleted.
type Read struct {
	At       time.Time
	Statuses []ClusterStatus
	// Gone are the clusters that no longer exist as of At: for a sweep, every published cluster
	// its inventory did not list; for a re-check, the clusters it asked for and was not given.
	Gone map[string]bool
	// Sweep: the read is a sweep's, which lists every cluster of the shard, so a published
	// cluster it does not hold is gone unless read later.
	Sweep bool
}

// Merge returns cur, the statuses published last, with r merged in: per cluster, the later read
// wins, so that a sweep that read before a re-check never undoes the re-check's finding or
// resolution, and a re-check that read before a sweep never undoes the sweep's. deleted holds
// the clusters that reads found deleted, by the time of that read, so that an older read never
// brings back a cluster a newer one found gone; Merge adds r's deletions to it. A status of r that
// replaces one of cur keeps cur's first-seen times of the same findings and, on each side r did
// not compare (SideDeclaration.Compared), cur's findings: those are at least as new as the ones
// r started from. The order (by name, then id) is kept; the input is not changed.
func Merge(cur []ClusterStatus, r Read, deleted map[string]time.Time) []ClusterStatus {
	fresh := make(map[string]ClusterStatus, len(r.Statuses))
	for _, s := range r.Statuses {
		fresh[s.Cluster.ID] = s
	}
	out := make([]ClusterStatus, 0, max(len(cur), len(r.Statuses)))
	published := make(map[string]bool, len(cur))
	for _, c := range cur {
		published[c.Cluster.ID] = true
		n, read := fresh[c.Cluster.ID]
		switch {
		case read && !n.ReadAt.Before(c.ReadAt):
			out = append(out, newer(n, c))
		case read:
			out = append(out, c) // read later by the other job
		case (r.Gone[c.Cluster.ID] || r.Sweep) && c.ReadAt.Before(r.At):
			deleted[c.Cluster.ID] = r.At
		default:
			out = append(out, c)
		}
	}
	for _, n := range r.Statuses {
		if published[n.Cluster.ID] {
			continue
		}
		if at, ok := deleted[n.Cluster.ID]; ok && !n.ReadAt.After(at) {
			continue // found deleted by a later read
		}
		out = append(out, n)
	}
	slices.SortStableFunc(out, func(a, b ClusterStatus) int {
		return cmp.Or(strings.Compare(a.Cluster.Name, b.Cluster.Name), strings.Compare(a.Cluster.ID, b.Cluster.ID))
	})
	return out
}

// newer returns n, a later read of c's cluster, with c's first-seen times of the findings both
// hold and c's findings on the sides n did not compare (n kept those of an older snapshot). The
// operation side is always compared.
func newer(n, c ClusterStatus) ClusterStatus {
	n = n.CloneFindings()
	n.Accepted = slices.Clone(n.Accepted)
	first := make(map[Side]map[string]time.Time)
	note := func(f Finding) {
		side := f.Kind.Side()
		if first[side] == nil {
			first[side] = make(map[string]time.Time)
		}
		if t, ok := first[side][f.Key()]; !ok || f.FirstSeen.Before(t) {
			first[side][f.Key()] = f.FirstSeen
		}
	}
	for _, f := range c.Findings() {
		note(f)
	}
	for _, a := range c.Accepted {
		note(a.Finding)
	}
	earlier := func(f *Finding) {
		if t, ok := first[f.Kind.Side()][f.Key()]; ok && !t.IsZero() && t.Before(f.FirstSeen) {
			f.FirstSeen = t
		}
	}
	for _, d := range SideDeclarations {
		if d.Compared(n) {
			for i := range n.found[d.Side] {
				earlier(&n.found[d.Side][i])
			}
			continue
		}
		n.Set(d.Side, slices.Clone(c.On(d.Side)))
		n.Accepted = slices.DeleteFunc(n.Accepted, func(a AcceptedFinding) bool { return a.Kind.Side() == d.Side })
		for _, a := range c.Accepted {
			if a.Kind.Side() == d.Side {
				n.Accepted = append(n.Accepted, a)
			}
		}
	}
	for i := range n.Accepted {
		earlier(&n.Accepted[i].Finding)
	}
	if n.Cluster.State == c.Cluster.State && !c.StateSince.IsZero() && c.StateSince.Before(n.StateSince) {
		n.StateSince = c.StateSince
	}
	return n
}
