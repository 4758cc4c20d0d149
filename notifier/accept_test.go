package notifier

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// withAccepted is a status whose VM side also has accepted findings.
func withAccepted(st collector.ClusterStatus, accepted ...collector.Finding) collector.ClusterStatus {
	for _, f := range accepted {
		st.Accepted = append(st.Accepted, collector.AcceptedFinding{Finding: f, Acceptance: collector.Acceptance{Reason: "known"}})
	}
	return st
}

// TestUpdateAccepted: an accepted finding is never announced; one that becomes accepted after
// its announcement has its alert archived, and its side does not "match again" while accepted
// findings remain, only once they clear; a rule removed makes the finding new, announced once.
func TestUpdateAccepted(t *testing.T) {
	cache := finding(collector.KindUnmappedVM, "cache")
	stray := finding(collector.KindUnmappedVM, "stray")
	var s state
	steps := []struct {
		name string
		st   collector.ClusterStatus
		want []string
	}{
		{"accepted from the start: nothing", withAccepted(status(true, true, nil, nil), cache), nil},
		{"still accepted: nothing", withAccepted(status(true, true, nil, nil), cache), nil},
		{"accepted finding clears: no resolution, none was announced", status(true, true, nil, nil), nil},
		{"announced", status(true, true, []collector.Finding{stray}, nil), []string{"new unmapped_vm:stray"}},
		{"then accepted: no false matches-again", withAccepted(status(true, true, nil, nil), stray), nil},
		{"a second accepted finding", withAccepted(status(true, true, nil, nil), stray, cache), nil},
		{"rule removed: new, announced once", withAccepted(status(true, true, []collector.Finding{stray}, nil), cache), []string{"new unmapped_vm:stray"}},
		{"persists: not again", withAccepted(status(true, true, []collector.Finding{stray}, nil), cache), nil},
		{"accepted again", withAccepted(status(true, true, nil, nil), stray, cache), nil},
		{"the accepted drift clears: the side matches again", status(true, true, nil, nil), []string{"resolved vm"}},
	}
	for _, step := range steps {
		if step.name == "then accepted: no false matches-again" {
			a := s.Clusters["k1"].Sides[collector.SideVM].Findings[stray.Key()]
			a.AlertType, a.Alert.Done, a.Annotation.Done = 20007, true, true
		}
		got := kinds(s.update([]collector.ClusterStatus{step.st}))
		if !slices.Equal(got, step.want) {
			t.Fatalf("%s: events %v, want %v", step.name, got, step.want)
		}
		if step.name == "then accepted: no false matches-again" && !slices.Contains(s.Archive, 20007) {
			t.Errorf("%s: the accepted finding's alert type is not queued for archiving: %v", step.name, s.Archive)
		}
	}
}

// TestUpdateAcceptedDropsOwedResolution: drift that becomes accepted before the resolution of
// its side was sent withdraws the resolution, which would no longer hold.
func TestUpdateAcceptedDropsOwedResolution(t *testing.T) {
	stray := finding(collector.KindUnmappedVM, "stray")
	var s state
	s.update([]collector.ClusterStatus{status(true, true, []collector.Finding{stray}, nil)})
	if got := kinds(s.update([]collector.ClusterStatus{status(true, true, nil, nil)})); !slices.Equal(got, []string{"resolved vm"}) {
		t.Fatalf("events %v, want the resolution", got)
	}
	s.update([]collector.ClusterStatus{withAccepted(status(true, true, nil, nil), stray)})
	ss := s.Clusters["k1"].Sides[collector.SideVM]
	if ss.Resolution != nil || !ss.AcceptedOnly {
		t.Fatalf("side state %+v: want the resolution withdrawn and owed once the accepted finding clears", ss)
	}
	if got := kinds(s.update([]collector.ClusterStatus{status(true, true, nil, nil)})); !slices.Equal(got, []string{"resolved vm"}) {
		t.Fatalf("events %v, want the resolution once the accepted finding cleared", got)
	}
}
