package notifier

import "github.com/cks-drift-exporter/cks-drift-exporter/collector"

// The summary alert is the alert of every open finding the alert cap kept from an alert of its
// own. Each pass that caps new findings replaces it (CloudStack keeps one un-archived alert per
// type and zone, and the summary has one type): the new summary archives the previous one and
// counts every capped finding still open, those of earlier passes included, so that no capped
// finding is left named in no open alert. A capped finding that clears changes nothing (the
// summary is not sent again for it, which would announce the others once more); when the last
// one clears, the summary is archived. A capped finding never gets an alert of its own later:
// each finding has one alert, its own or the summary's.

// summarized returns the findings the summary alert counts, by cluster: the capped findings that
// are still open.
func (s *state) summarized() map[string]*cappedCount {
	out := make(map[string]*cappedCount)
	for id, cs := range s.Clusters {
		c := &cappedCount{Name: cs.Name, Account: cs.Account, Project: cs.Project, Kinds: map[collector.Kind]int{}}
		for _, ss := range cs.Sides {
			for _, a := range ss.Findings {
				if a.Summarized {
					c.Count++
					c.Kinds[a.Kind]++
				}
			}
		}
		if c.Count > 0 {
			out[id] = c
		}
	}
	return out
}

// newSummary makes the summary alert owed after a pass that capped findings: every capped finding
// still open, with the cap of the pass.
func (s *state) newSummary(limit int) {
	s.Summary = &alertSummary{Capped: s.summarized(), Limit: limit}
}

// closeSummary drops the summary owed and queues the open one for archiving, once no finding it
// counts is open. A summary whose sending had an unknown outcome may be open too.
func (s *state) closeSummary(summaryType int) {
	for _, cs := range s.Clusters {
		for _, ss := range cs.Sides {
			for _, a := range ss.Findings {
				if a.Summarized {
					return
				}
			}
		}
	}
	if sm := s.Summary; sm != nil {
		s.SummaryOpen = s.SummaryOpen || !sm.Part.Attempted.IsZero()
		s.Summary = nil
	}
	if s.SummaryOpen {
		s.Archive = appendUnique(s.Archive, summaryType)
		s.SummaryOpen = false
	}
}

// summaryStored records that CloudStack holds the summary: it is open, and the archive of its
// type that may be owed from an earlier summary was done by sending it.
func (s *state) summaryStored(summaryType int) {
	s.Summary = nil
	s.SummaryOpen = true
	s.Archive = removeInt(s.Archive, summaryType)
}
