package collector

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMarkStatesSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	earlier := now.Add(-3 * time.Hour)
	remembered := now.Add(-5 * time.Hour)
	cluster := func(state string) Cluster { return Cluster{ID: "k1", Name: "prod", State: state} }
	for _, tc := range []struct {
		name   string
		prev   []ClusterStatus
		memory StateMemory
		state  string
		want   time.Time
	}{
		{name: "first cycle: now", state: "Scaling", want: now},
		{name: "same state as the last cycle: kept", prev: []ClusterStatus{{Cluster: cluster("Scaling"), StateSince: earlier}}, state: "Scaling", want: earlier},
		{name: "another state than the last cycle: now", prev: []ClusterStatus{{Cluster: cluster("Running"), StateSince: earlier}}, state: "Scaling", want: now},
		{name: "remembered across a restart", state: "Scaling", want: remembered,
			memory: func(id, state string) (time.Time, bool) { return remembered, id == "k1" && state == "Scaling" }},
		{name: "remembered for another state: not used", state: "Scaling", want: now,
			memory: func(id, state string) (time.Time, bool) { return remembered, state == "Running" }},
		{name: "the earliest of last cycle and memory", prev: []ClusterStatus{{Cluster: cluster("Scaling"), StateSince: remembered}}, state: "Scaling", want: remembered,
			memory: func(string, string) (time.Time, bool) { return earlier, true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			statuses := []ClusterStatus{{Cluster: cluster(tc.state)}}
			MarkStates(statuses, tc.prev, tc.memory, nil, now, 0)
			if got := statuses[0].StateSince; !got.Equal(tc.want) {
				t.Errorf("StateSince = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestMarkStatesStuck holds the rows of stuck_in_operation (docs/scenarios.md).
func TestMarkStatesStuck(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	frozen := []Finding{{Kind: KindUnmappedVM, VMID: "v9", VMName: "prod-node-9", Message: "m", FirstSeen: now.Add(-5 * time.Hour)}}
	status := func(state string, since time.Time, op ...Finding) ClusterStatus {
		return ClusterStatus{Cluster: Cluster{ID: "k1", Name: "prod", State: state}, StateSince: since}.With(frozen...).With(op...)
	}
	stuckFor := func(state string, since time.Time, firstSeen time.Time) Finding {
		return Finding{Kind: KindStuckInOperation, Message: "Kubernetes cluster prod has been in state " + state + " since " + since.Format(time.RFC3339) + ", longer than 1h", FirstSeen: firstSeen}
	}
	for _, tc := range []struct {
		name       string
		prev       []ClusterStatus
		cluster    Cluster
		stuckAfter time.Duration
		want       []Finding
		wantSince  time.Time
	}{
		{name: "stuck: in Scaling for longer than stuck_after", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Scaling", now.Add(-61*time.Minute))}, cluster: Cluster{State: "Scaling"},
			want: []Finding{stuckFor("Scaling", now.Add(-61*time.Minute), now)}, wantSince: now.Add(-61 * time.Minute)},
		{name: "stuck: first seen carried over from the last cycle", stuckAfter: time.Hour,
			prev:    []ClusterStatus{status("Scaling", now.Add(-2*time.Hour), stuckFor("Scaling", now.Add(-2*time.Hour), now.Add(-time.Hour)))},
			cluster: Cluster{State: "Scaling"}, want: []Finding{stuckFor("Scaling", now.Add(-2*time.Hour), now.Add(-time.Hour))}, wantSince: now.Add(-2 * time.Hour)},
		{name: "stuck: CloudStack's record of the operation is earlier than the first cycle", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Upgrading", now.Add(-10*time.Minute))}, cluster: Cluster{State: "Upgrading", OperationStarted: now.Add(-3 * time.Hour)},
			want: []Finding{stuckFor("Upgrading", now.Add(-3*time.Hour), now)}, wantSince: now.Add(-3 * time.Hour)},
		{name: "not stuck: CloudStack's record is older than the state seen before, an earlier operation's", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Running", now.Add(-10*time.Minute))}, cluster: Cluster{State: "Scaling", OperationStarted: now.Add(-3 * time.Hour)}, wantSince: now},
		{name: "stuck: CloudStack's record after the state seen before", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Running", now.Add(-5*time.Hour))}, cluster: Cluster{State: "Scaling", OperationStarted: now.Add(-90 * time.Minute)},
			want: []Finding{stuckFor("Scaling", now.Add(-90*time.Minute), now)}, wantSince: now.Add(-90 * time.Minute)},
		{name: "stuck: an unknown state counts as an operation", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Migrating", now.Add(-2*time.Hour))}, cluster: Cluster{State: "Migrating"},
			want: []Finding{stuckFor("Migrating", now.Add(-2*time.Hour), now)}, wantSince: now.Add(-2 * time.Hour)},
		{name: "not yet stuck: in Starting for less than stuck_after", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Starting", now.Add(-59*time.Minute))}, cluster: Cluster{State: "Starting"}, wantSince: now.Add(-59 * time.Minute)},
		{name: "not stuck: Stopped is no operation however long", stuckAfter: time.Hour,
			prev: []ClusterStatus{status("Stopped", now.Add(-48*time.Hour))}, cluster: Cluster{State: "Stopped", OperationStarted: now.Add(-49 * time.Hour)}, wantSince: now.Add(-48 * time.Hour)},
		{name: "left the state: back in Running, the finding is gone and the clock starts again", stuckAfter: time.Hour,
			prev:    []ClusterStatus{status("Scaling", now.Add(-2*time.Hour), stuckFor("Scaling", now.Add(-2*time.Hour), now.Add(-time.Hour)))},
			cluster: Cluster{State: "Running"}, wantSince: now},
		{name: "left the state: from Scaling to Upgrading, not stuck in the new one yet", stuckAfter: time.Hour,
			prev:    []ClusterStatus{status("Scaling", now.Add(-2*time.Hour), stuckFor("Scaling", now.Add(-2*time.Hour), now.Add(-time.Hour)))},
			cluster: Cluster{State: "Upgrading"}, wantSince: now},
		{name: "stuck_after 0: never stuck", stuckAfter: 0,
			prev: []ClusterStatus{status("Scaling", now.Add(-48*time.Hour))}, cluster: Cluster{State: "Scaling"}, wantSince: now.Add(-48 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.cluster.ID, tc.cluster.Name = "k1", "prod"
			statuses := []ClusterStatus{ClusterStatus{Cluster: tc.cluster}.With(frozen...)}
			MarkStates(statuses, tc.prev, nil, nil, now, tc.stuckAfter)
			got := statuses[0]
			if diff := cmp.Diff(tc.want, got.On(SideOperation)); diff != "" {
				t.Errorf("Operation (-want +got):\n%s", diff)
			}
			if !got.StateSince.Equal(tc.wantSince) {
				t.Errorf("StateSince = %s, want %s", got.StateSince, tc.wantSince)
			}
			if diff := cmp.Diff(frozen, got.On(SideVM)); diff != "" {
				t.Errorf("the VM side changed (-want +got):\n%s", diff)
			}
			if op := got.On(SideOperation); len(op) == 1 && (op[0].VMID != "" || op[0].VMName != "" || op[0].Kind.Side() != SideOperation || !op[0].Kind.PerCluster()) {
				t.Errorf("stuck_in_operation %+v is not a cluster-level finding of the operation side", op[0])
			}
		})
	}
}

// TestAcceptStuck: an accept rule for the whole cluster accepts stuck_in_operation, and the
// finding goes back to its side when the rule is removed.
func TestAcceptStuck(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	c := Cluster{ID: "k1", Name: "prod", State: "Scaling"}
	statuses := []ClusterStatus{{Cluster: c, StateSince: now.Add(-2 * time.Hour)}}
	MarkStates(statuses, statuses, nil, nil, now, time.Hour)
	accepted, _ := Accept(statuses, []Cluster{c}, []AcceptRule{{Cluster: "prod", Kind: KindStuckInOperation, Reason: "scaling by hand"}}, now)
	if op := accepted[0].On(SideOperation); len(op) != 0 || len(accepted[0].Accepted) != 1 || accepted[0].AcceptedOn(SideOperation) != 1 {
		t.Fatalf("accepted: Operation %v, Accepted %v", op, accepted[0].Accepted)
	}
	back, _ := Accept(accepted, []Cluster{c}, nil, now)
	if op := back[0].On(SideOperation); len(op) != 1 || len(back[0].Accepted) != 0 {
		t.Errorf("rule removed: Operation %v, Accepted %v", op, back[0].Accepted)
	}
}
