package exporter

import (
	"net/http"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestFindingsSayAgeAnnouncementAndHistory follows one finding through /findings: open, with its
// age, its announcement as CloudStack accepted it, its runbook and its VM's page in CloudStack's
// UI; then resolved, in the cluster's history, which a restart keeps (the state file).
func TestFindingsSayAgeAnnouncementAndHistory(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("ready", func() bool { code, _ := get(t, e.url+"/-/ready"); return code == http.StatusOK })
	restore, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1])
	if err != nil {
		t.Fatal(err)
	}
	e.checkNow(1)

	r, raw := e.findingsReport()
	if r.Generated == nil || r.NotifierMode != "direct" || len(r.Clusters) != 1 || len(r.Clusters[0].Findings) != 1 {
		t.Fatalf("/findings with one finding:\n%s", raw)
	}
	c, f := r.Clusters[0], r.Clusters[0].Findings[0]
	if f.AgeSeconds == nil || f.RunbookURL != report.RunbookURL(f.Kind) || f.CloudStackURL == "" || c.CloudStackURL == "" {
		t.Errorf("the finding lacks its age, runbook or links:\n%s", raw)
	}
	if a := f.Announcement; a == nil || a.Annotation.State != notifier.PartSent || a.Alert.State != notifier.PartSent || a.Alert.At == nil {
		t.Errorf("announcement %+v, want annotation and alert sent, with when:\n%s", a, raw)
	}

	restore()
	e.checkNow(1)
	r, raw = e.findingsReport()
	if c := r.Clusters[0]; len(c.Findings) != 0 || len(c.Resolved) != 1 || c.Resolved[0].Key() != f.Key() || !c.Resolved[0].FirstSeen.Equal(f.FirstSeen) {
		t.Fatalf("after the map row is back: findings %v, recently resolved %v, want %s resolved:\n%s", c.Findings, c.Resolved, f.Key(), raw)
	}

	e.stop()
	e.start()
	e.waitFor("ready", func() bool { code, _ := get(t, e.url+"/-/ready"); return code == http.StatusOK })
	r, raw = e.findingsReport()
	if len(r.Clusters) != 1 || len(r.Clusters[0].Resolved) != 1 || r.Clusters[0].Resolved[0].Key() != f.Key() {
		t.Fatalf("after a restart the history is lost:\n%s", raw)
	}
}
