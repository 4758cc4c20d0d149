package collector

import (
	"testing"
	"time"
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
			MarkStates(statuses, tc.prev, tc.memory, now)
			if got := statuses[0].StateSince; !got.Equal(tc.want) {
				t.Errorf("StateSince = %s, want %s", got, tc.want)
			}
		})
	}
}
