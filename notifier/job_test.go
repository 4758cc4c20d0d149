package notifier

import (
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestJobKinds: each kind of job names its call and settles its own part of the state.
func TestJobKinds(t *testing.T) {
	a := &announcement{Message: "m"}
	resolution := &part{}
	cs := &clusterState{Sides: map[collector.Side]*sideState{
		collector.SideVM:   {Findings: map[string]*announcement{"k": a}},
		collector.SideNode: {Findings: map[string]*announcement{}, Resolution: resolution},
	}, Summary: &clusterSummary{}}
	n := &Notifier{state: state{Clusters: map[string]*clusterState{"c1": cs}}}
	for _, tc := range []struct {
		name string
		j    job
		op   string
		part *part
	}{
		{"archive", job{kind: jobArchive, alertType: 7}, "archiveAlerts", nil},
		{"finding annotation", job{kind: jobFindingAnnotation, clusterID: "c1", side: collector.SideVM, key: "k"}, "addAnnotation", &a.Annotation},
		{"finding alert", job{kind: jobFindingAlert, clusterID: "c1", side: collector.SideVM, key: "k"}, "generateAlert", &a.Alert},
		{"resolution", job{kind: jobResolution, clusterID: "c1", side: collector.SideNode}, "addAnnotation", resolution},
		{"summary", job{kind: jobSummary, clusterID: "c1"}, "addAnnotation", &cs.Summary.Part},
		{"finding gone", job{kind: jobFindingAlert, clusterID: "c1", side: collector.SideVM, key: "gone"}, "generateAlert", nil},
		{"side gone", job{kind: jobFindingAnnotation, clusterID: "c1", side: collector.SideOperation, key: "k"}, "addAnnotation", nil},
		{"cluster gone", job{kind: jobSummary, clusterID: "c2"}, "addAnnotation", nil},
	} {
		if got := tc.j.op(); got != tc.op {
			t.Errorf("%s: op %q, want %q", tc.name, got, tc.op)
		}
		if got := n.part(tc.j); got != tc.part {
			t.Errorf("%s: part %p, want %p", tc.name, got, tc.part)
		}
	}
}
