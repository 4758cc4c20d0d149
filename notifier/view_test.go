package notifier_test

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestViewShowsEachPart: the view of the notifier's state after a pass tells a sent annotation
// and alert (with when CloudStack accepted them), an alert held back by the cap, and an
// annotation CloudStack refused (with when it was tried); a finding the notifier never saw has
// no announcement.
func TestViewShowsEachPart(t *testing.T) {
	e := newNotifierEnv(t, notifier.Options{MaxAlertsPerCycle: 2})
	first, second := nodeFinding("prod", "ghost-a"), nodeFinding("prod", "ghost-b")
	if _, ok := e.n.View().Announcement(e.cluster.ID, collector.SideNode, first.Key()); ok {
		t.Fatal("an announcement before any pass")
	}
	statuses := e.status(first, second)
	unknown := collector.ClusterStatus{Cluster: collector.Cluster{ID: "9f0c1d2e-0000-4000-8000-00000000dead", Name: "zzz-gone"},
		Checked: true, Nodes: collector.NodesRead(nil, nil)}.With(nodeFinding("zzz-gone", "x"))
	e.notify(append(statuses, unknown))
	now := e.clock().UTC()

	v := e.n.View()
	if v.Mode != "direct" {
		t.Errorf("mode %q, want direct", v.Mode)
	}
	a, ok := v.Announcement(e.cluster.ID, collector.SideNode, first.Key())
	if !ok || a.Annotation.State != notifier.PartSent || a.Alert.State != notifier.PartSent || !at(a.Annotation.At, now) || !at(a.Alert.At, now) {
		t.Errorf("first finding: %+v (ok %v), want annotation and alert sent at %v", a, ok, now)
	}
	b, _ := v.Announcement(e.cluster.ID, collector.SideNode, second.Key())
	if b.Annotation.State != notifier.PartSent || b.Alert.State != notifier.PartCapped {
		t.Errorf("second finding: %+v, want annotation sent, alert capped", b)
	}
	g, _ := v.Announcement(unknown.Cluster.ID, collector.SideNode, unknown.On(collector.SideNode)[0].Key())
	if g.Annotation.State != notifier.PartFailed || !at(g.Annotation.At, now) {
		t.Errorf("finding of a cluster CloudStack does not know: %+v, want its annotation failed at %v", g, now)
	}
	if _, ok := v.Announcement(e.cluster.ID, collector.SideVM, first.Key()); ok {
		t.Error("an announcement on the wrong side")
	}

	e.advance(time.Minute)
	e.notify(statuses)
	if a2, _ := e.n.View().Announcement(e.cluster.ID, collector.SideNode, first.Key()); !at(a2.Alert.At, now) {
		t.Errorf("after a second pass the alert's time moved: %+v, want %v", a2, now)
	}
}

func at(got *time.Time, want time.Time) bool { return got != nil && got.Equal(want) }
