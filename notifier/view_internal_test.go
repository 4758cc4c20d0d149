package notifier

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestViewOffAndOwed: parts settled because they were switched off show as off, not sent; parts
// not tried yet as owed; a disabled notifier's view says so.
func TestViewOffAndOwed(t *testing.T) {
	f := collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: "ghost"}
	s := state{}
	s.update([]collector.ClusterStatus{collector.ClusterStatus{Cluster: collector.Cluster{ID: "c1", Name: "prod"}, Checked: true, Nodes: collector.NodesRead(nil, nil)}.With(f)})
	a, _ := newView(&s, Options{Enabled: true}).Announcement("c1", collector.SideNode, f.Key())
	if a.Annotation.State != PartOwed || a.Alert.State != PartOwed {
		t.Errorf("before a pass: %+v, want both owed", a)
	}
	s.settle(Options{Enabled: true, Annotations: true}, false) // alerts switched off
	a, _ = newView(&s, Options{Enabled: true, Annotations: true}).Announcement("c1", collector.SideNode, f.Key())
	if a.Annotation.State != PartOwed || a.Alert.State != PartOff {
		t.Errorf("alerts off: %+v, want annotation owed, alert off", a)
	}
	s.Clusters["c1"].Sides[collector.SideNode].Findings[f.Key()].Annotation = part{Done: true, At: time.Unix(100, 0)}
	s.settle(Options{}, true) // the notifier switched off: what was sent stays sent
	v := newView(&s, Options{})
	a, _ = v.Announcement("c1", collector.SideNode, f.Key())
	if v.Mode != "off" || a.Annotation.State != PartSent || a.Alert.State != PartOff {
		t.Errorf("notifier off: mode %q, %+v; want off, annotation sent, alert off", v.Mode, a)
	}
}
