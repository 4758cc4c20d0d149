package notifier

import (
	"fmt"
	"hash/fnv"
)

// CloudStack keeps one un-archived alert per type and zone: a generateAlert with the type and
// zone of an alert that is not archived is dropped, with success answered. So every finding gets
// a type of its own, derived from its cluster and key within a range clear of CloudStack's
// built-in types, probing past types in use; its alert is archived when it clears, so that the
// type, and a recurrence, alert again. The highest type of the range is kept for the summary.

// TypeRange is the range of alert types the notifier uses, Min to Max inclusive. The
// configuration chooses it (notifier.alert_type_min and alert_type_max) clear of CloudStack's
// built-in types; the notifier has no range of its own.
type TypeRange struct{ Min, Max int }

// check refuses a range without a type for findings below the summary's.
func (r TypeRange) check() error {
	if r.Min <= 0 || r.Max <= r.Min {
		return fmt.Errorf("%w: alert types %d to %d leave no type for findings below the summary's", ErrInvalidOptions, r.Min, r.Max)
	}
	return nil
}

func (r TypeRange) summaryType() int { return r.Max }

// typesInUse returns the alert types that findings hold or that wait to be archived.
func (s *state) typesInUse() map[int]bool {
	used := make(map[int]bool, len(s.Archive))
	for _, t := range s.Archive {
		used[t] = true
	}
	for _, cs := range s.Clusters {
		for _, ss := range cs.Sides {
			for _, a := range ss.Findings {
				if a.AlertType != 0 {
					used[a.AlertType] = true
				}
			}
		}
	}
	return used
}

// allocate picks the type of a new finding's alert, one not in used, and adds it to used.
func allocate(r TypeRange, used map[int]bool, clusterID, key string) int {
	span := r.Max - r.Min // the summary type is excluded
	h := fnv.New32a()
	_, _ = h.Write([]byte(clusterID + "/" + key))
	start := int(h.Sum32() % uint32(span))
	for i := 0; i < span; i++ {
		t := r.Min + (start+i)%span
		if !used[t] {
			used[t] = true
			return t
		}
	}
	return 0 // every type is in use: the caller cannot alert this finding one by one
}
