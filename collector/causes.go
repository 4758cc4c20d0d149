package collector

import (
	"slices"
	"time"
)

// CauseMemory returns the cause remembered for a finding of a cluster across restarts (the
// notifier's state keeps it), and whether one is.
type CauseMemory func(clusterID string, side Side, key string) (Cause, bool)

// CarryCauses gives each finding of statuses the cause of the same finding in prev (the last
// snapshot's, accepted ones included), else the one memory remembers: a cause is looked up once,
// when its finding is new, and kept while the finding lasts. A nil memory remembers nothing.
func CarryCauses(statuses, prev []ClusterStatus, memory CauseMemory) {
	known := make(map[string]map[string]Cause)
	for _, s := range prev {
		for _, f := range append(s.Findings(), acceptedFindings(s)...) {
			if f.Cause.IsZero() {
				continue
			}
			if known[s.Cluster.ID] == nil {
				known[s.Cluster.ID] = make(map[string]Cause)
			}
			known[s.Cluster.ID][string(f.Kind.Side())+"/"+f.Key()] = f.Cause
		}
	}
	for i := range statuses {
		id := statuses[i].Cluster.ID
		statuses[i].setCauses(func(side Side, f Finding) (Cause, bool) {
			if !f.Cause.IsZero() {
				return Cause{}, false
			}
			if c, ok := known[id][string(side)+"/"+f.Key()]; ok {
				return c, true
			}
			if memory != nil {
				return memory(id, side, f.Key())
			}
			return Cause{}, false
		})
	}
}

// setCauses gives the findings of s the causes cause returns (false: the finding keeps its own),
// in copies of the sides' findings: copies of a status share them.
func (s *ClusterStatus) setCauses(cause func(side Side, f Finding) (Cause, bool)) {
	for _, side := range Sides {
		fs := s.On(side)
		var out []Finding
		for j, f := range fs {
			if c, ok := cause(side, f); ok {
				if out == nil {
					out = slices.Clone(fs)
				}
				out[j].Cause = c
			}
		}
		if out != nil {
			s.Set(side, out)
		}
	}
}

func acceptedFindings(s ClusterStatus) []Finding {
	out := make([]Finding, len(s.Accepted))
	for i, a := range s.Accepted {
		out[i] = a.Finding
	}
	return out
}

// WantCauses lists the findings of statuses that are new (first seen at now, so neither the last
// snapshot nor the notifier's memory knew them) and whose kind an event can explain, at most
// limit of them: one of each cluster in turn, so that a cluster with many new findings does not
// take another's look-ups. triggers returns the ids of the events that started this check, name
// a resource and are of one of the types (nil: none). A finding about network rules is wanted
// only when prev (the last snapshot's statuses, nil: none wanted) held rules of its cluster that
// are gone, and an event that started this check named one of them: the only way to its
// deletion's event (CauseOnRule).
func WantCauses(statuses, prev []ClusterStatus, now time.Time, limit int, triggers func(resourceID string, types []string) []string) []CauseWant {
	prevRules := make(map[string]*NetworkRules, len(prev))
	for _, s := range prev {
		prevRules[s.Cluster.ID] = s.Cluster.Rules
	}
	var perCluster [][]CauseWant
	for _, s := range statuses {
		var wants []CauseWant
		for _, f := range s.Findings() {
			w, ok := wantCause(s.Cluster, f, now)
			if !ok {
				continue
			}
			if w.On == CauseOnRule {
				if w, ok = wantRuleCause(w, goneRules(prevRules[s.Cluster.ID], s.Cluster.Rules, f), triggers); ok {
					wants = append(wants, w)
				}
				continue
			}
			if triggers != nil {
				w.Triggers = triggers(w.ResourceID, w.Types)
			}
			wants = append(wants, w)
		}
		if len(wants) > 0 {
			perCluster = append(perCluster, wants)
		}
	}
	var out []CauseWant
	for round := 0; len(out) < limit; round++ {
		took := false
		for _, wants := range perCluster {
			if round < len(wants) && len(out) < limit {
				out = append(out, wants[round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// wantCause returns the look-up of f's cause, and false when f is not new, already has one, or
// its kind or its finding names nothing an event can be recorded against.
func wantCause(c Cluster, f Finding, now time.Time) (CauseWant, bool) {
	d, ok := f.Kind.Declaration()
	if !ok || len(d.Causes.Types) == 0 || !f.Cause.IsZero() || !f.FirstSeen.Equal(now) {
		return CauseWant{}, false
	}
	w := CauseWant{Cluster: c, Side: d.Side, Key: f.Key(), On: d.Causes.On, Types: d.Causes.Types, Since: now.Add(-CauseLookBack)}
	switch d.Causes.On {
	case CauseOnRule: // the gone rules are set by wantRuleCause
	case CauseOnVM:
		if f.VMID == "" {
			return CauseWant{}, false // a node with no VM
		}
		w.ResourceID = f.VMID
	default:
		w.ResourceID = c.ID
	}
	return w, true
}

// wantRuleCause is w for the rules gone, with the events that started the check and named one of
// them; false when there are none.
func wantRuleCause(w CauseWant, gone []string, triggers func(resourceID string, types []string) []string) (CauseWant, bool) {
	if len(gone) == 0 || triggers == nil {
		return CauseWant{}, false
	}
	for _, id := range gone {
		for _, t := range triggers(id, w.Types) {
			if !slices.Contains(w.Triggers, t) {
				w.Triggers = append(w.Triggers, t)
			}
		}
	}
	w.ResourceID, w.RuleIDs = gone[0], gone
	return w, len(w.Triggers) > 0
}

// SetCauses gives the findings wants names their causes (causes[i] is wants[i]'s, zero for none).
func SetCauses(statuses []ClusterStatus, wants []CauseWant, causes []Cause) {
	found := make(map[string]map[string]Cause)
	for i, w := range wants {
		if i >= len(causes) || causes[i].IsZero() {
			continue
		}
		if found[w.Cluster.ID] == nil {
			found[w.Cluster.ID] = make(map[string]Cause)
		}
		found[w.Cluster.ID][string(w.Side)+"/"+w.Key] = causes[i]
	}
	for i := range statuses {
		id := statuses[i].Cluster.ID
		statuses[i].setCauses(func(side Side, f Finding) (Cause, bool) {
			c, ok := found[id][string(side)+"/"+f.Key()]
			return c, ok
		})
	}
}
