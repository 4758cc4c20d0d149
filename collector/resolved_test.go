package collector

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRecordResolved(t *testing.T) {
	c := Cluster{ID: "c1", Name: "prod"}
	unmapped := Finding{Kind: KindUnmappedVM, VMID: "v1", VMName: "prod-node-1", FirstSeen: old}
	notNode := Finding{Kind: KindVMNotANode, VMID: "v2", VMName: "prod-node-2", FirstSeen: old}
	earlier := Resolved{ClusterID: "c1", ClusterName: "prod", Finding: Finding{Kind: KindNodeWithoutVM, VMName: "ghost"}, ResolvedAt: old}
	both := ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil)}.With(unmapped, notNode)
	resolved := func(f Finding) Resolved {
		return Resolved{ClusterID: "c1", ClusterName: "prod", Finding: f, ResolvedAt: now}
	}
	for _, tc := range []struct {
		name    string
		history []Resolved
		next    ClusterStatus
		want    []Resolved
	}{
		{"both sides clear", []Resolved{earlier},
			ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil)},
			[]Resolved{resolved(unmapped), resolved(notNode), earlier}},
		{"still there", nil, both, []Resolved{}},
		{"skipped: kept findings have not cleared", nil,
			ClusterStatus{Cluster: c}, []Resolved{}},
		{"unreachable: the node side was not compared", nil,
			ClusterStatus{Cluster: c, Checked: true}.With(notNode), []Resolved{resolved(unmapped)}},
		{"accepted: still present, not resolved", nil,
			ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil),
				Accepted: []AcceptedFinding{{Finding: unmapped, Acceptance: Acceptance{Reason: "known"}}}}.With(notNode),
			[]Resolved{}},
		{"unreachable, and the kept node findings are not in next either", nil,
			ClusterStatus{Cluster: c, Checked: true}, []Resolved{resolved(unmapped)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RecordResolved(tc.history, []ClusterStatus{both}, []ClusterStatus{tc.next}, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordResolvedAccepted: a finding that goes away while an accept rule accepts it has
// cleared; one the rule gives back to its side (the rule removed) has not.
func TestRecordResolvedAccepted(t *testing.T) {
	c := Cluster{ID: "c1", Name: "prod"}
	unmapped := Finding{Kind: KindUnmappedVM, VMID: "v1", VMName: "prod-node-1", FirstSeen: old}
	accepted := ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil),
		Accepted: []AcceptedFinding{{Finding: unmapped, Acceptance: Acceptance{Reason: "known"}}}}
	gone := ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil)}
	want := []Resolved{{ClusterID: "c1", ClusterName: "prod", Finding: unmapped, ResolvedAt: now}}
	if diff := cmp.Diff(want, RecordResolved(nil, []ClusterStatus{accepted}, []ClusterStatus{gone}, now)); diff != "" {
		t.Errorf("gone while accepted (-want +got):\n%s", diff)
	}
	back := ClusterStatus{Cluster: c, Checked: true, Nodes: NodesRead(nil, nil)}.With(unmapped)
	if got := RecordResolved(nil, []ClusterStatus{accepted}, []ClusterStatus{back}, now); len(got) != 0 {
		t.Errorf("given back by its rule: recorded as resolved %v", got)
	}
}

// TestRecordResolvedStuck: a cluster that is no longer stuck has its stuck_in_operation finding
// resolved, also when its next state is one that is not checked either.
func TestRecordResolvedStuck(t *testing.T) {
	c := Cluster{ID: "c1", Name: "prod", State: "Scaling"}
	stuck := Finding{Kind: KindStuckInOperation, Message: "stuck", FirstSeen: old}
	prev := []ClusterStatus{ClusterStatus{Cluster: c}.With(stuck)}
	c.State = "Stopped"
	got := RecordResolved(nil, prev, []ClusterStatus{{Cluster: c}}, now)
	want := []Resolved{{ClusterID: "c1", ClusterName: "prod", Finding: stuck, ResolvedAt: now}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if got := RecordResolved(nil, prev, prev, now); len(got) != 0 {
		t.Errorf("still stuck: recorded as resolved %v", got)
	}
}

func TestRecordResolvedForgetsGoneClusters(t *testing.T) {
	history := []Resolved{{ClusterID: "gone"}, {ClusterID: "kept"}}
	got := RecordResolved(history, nil, []ClusterStatus{{Cluster: Cluster{ID: "kept"}}}, now)
	if diff := cmp.Diff([]Resolved{{ClusterID: "kept"}}, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if len(history) != 2 {
		t.Errorf("the input was changed: %v", history)
	}
}

// TestRecordResolvedBounds has one cluster clear far more findings than its bound, every cycle:
// it keeps its newest MaxResolvedPerCluster and leaves the other cluster's history alone, and
// the whole history never passes MaxResolved.
func TestRecordResolvedBounds(t *testing.T) {
	noisy, quiet := Cluster{ID: "noisy", Name: "noisy"}, Cluster{ID: "quiet", Name: "quiet"}
	history := []Resolved{{ClusterID: "quiet", ClusterName: "quiet", ResolvedAt: old}}
	for cycle := range 3 {
		var many []Finding
		for i := range 3 * MaxResolvedPerCluster {
			many = append(many, Finding{Kind: KindUnmappedVM, VMID: fmt.Sprintf("v%d-%d", cycle, i)})
		}
		prev := []ClusterStatus{ClusterStatus{Cluster: noisy, Checked: true}.With(many...), {Cluster: quiet, Checked: true}}
		next := []ClusterStatus{{Cluster: noisy, Checked: true}, {Cluster: quiet, Checked: true}}
		history = RecordResolved(history, prev, next, now.Add(time.Duration(cycle)*time.Minute))
	}
	count := map[string]int{}
	for _, r := range history {
		count[r.ClusterID]++
	}
	if count["noisy"] != MaxResolvedPerCluster || count["quiet"] != 1 {
		t.Errorf("entries by cluster %v, want %d noisy and 1 quiet", count, MaxResolvedPerCluster)
	}
	if got := history[0].VMID; got != "v2-0" {
		t.Errorf("newest entry %q, want v2-0 (the last cycle's)", got)
	}

	var clusters []ClusterStatus
	for i := range MaxResolved/MaxResolvedPerCluster + 5 {
		c := Cluster{ID: fmt.Sprintf("c%04d", i)}
		var fs []Finding
		for j := range MaxResolvedPerCluster {
			fs = append(fs, Finding{Kind: KindUnmappedVM, VMID: fmt.Sprint(j)})
		}
		clusters = append(clusters, ClusterStatus{Cluster: c, Checked: true}.With(fs...))
	}
	cleared := make([]ClusterStatus, len(clusters))
	for i, c := range clusters {
		cleared[i] = ClusterStatus{Cluster: c.Cluster, Checked: true}
	}
	if got := len(RecordResolved(nil, clusters, cleared, now)); got != MaxResolved {
		t.Errorf("%d entries, want the bound %d", got, MaxResolved)
	}
}
