package notifier

import (
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// In alertmanager mode a side resolves when Alertmanager reports the alert resolved, not when
// one cycle misses the finding.
func TestFiringOnlyKeepsAnnouncedFiringFindings(t *testing.T) {
	f := finding(collector.KindUnmappedVM, "w2")
	var s state
	s.Firing = map[string]firingAlert{"fp": {StartsAt: t0, ClusterID: "k1", Key: f.Key()}}
	if ev := s.update(s.firingOnly([]collector.ClusterStatus{status(true, true, []collector.Finding{f}, nil)})); len(ev) != 1 {
		t.Fatalf("events %v, want the new finding", kinds(ev))
	}
	// A cycle that does not find it while Alertmanager still reports it firing: no resolution.
	if ev := s.update(s.firingOnly([]collector.ClusterStatus{status(true, true, nil, nil)})); len(ev) != 0 {
		t.Fatalf("events %v, want none while the alert fires", kinds(ev))
	}
	delete(s.Firing, "fp")
	if ev := kinds(s.update(s.firingOnly([]collector.ClusterStatus{status(true, true, nil, nil)}))); len(ev) != 1 || ev[0] != "resolved vm" {
		t.Fatalf("events %v, want the resolution", ev)
	}
}
