package collector

import "testing"

// TestNodeListRead: only NodesRead makes a list that reads as read; the zero list (never listed)
// and a failed one do not, whatever else they hold.
func TestNodeListRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		list NodeList
		want bool
	}{
		{"never listed", NodeList{}, false},
		{"failed", NodeList{Err: "timeout", Detail: "i/o timeout"}, false},
		{"names without NodesRead", NodeList{Names: []string{"test-node-1"}}, false},
		{"read", NodesRead([]string{"test-node-1"}, nil), true},
		{"read, no node", NodesRead(nil, nil), true},
	} {
		if got := tc.list.Read(); got != tc.want {
			t.Errorf("%s: Read() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEvaluateShardKeepsTheLastListing: a checked cluster holds this cycle's listing ("not_listed"
// when there was none), a skipped one the listing of its last check, and a skipped cluster never
// checked one never read; only a checked cluster whose nodes were read has its node side
// evaluated.
func TestEvaluateShardKeepsTheLastListing(t *testing.T) {
	t.Parallel()
	running := func(id string) Cluster {
		return Cluster{ID: id, Name: id, State: "Running", ClusterType: "CloudManaged"}
	}
	scaling := func(id string) Cluster {
		return Cluster{ID: id, Name: id, State: "Scaling", ClusterType: "CloudManaged"}
	}
	prev := []ClusterStatus{
		{Cluster: running("was-read"), Checked: true, Nodes: NodesRead(nil, nil)},
		{Cluster: running("was-refused"), Checked: true, Nodes: NodeList{Err: "auth", Detail: "key refused"}},
	}
	inv := Inventory{Clusters: []Cluster{running("read"), running("failed"), running("not-listed"),
		scaling("was-read"), scaling("was-refused"), scaling("never-checked")}}
	nodes := map[string]NodeList{"read": NodesRead(nil, nil), "failed": {Err: "timeout", Detail: "i/o timeout"}}
	want := map[string]struct {
		read, evaluated bool
		err, detail     string
	}{
		"read":          {read: true, evaluated: true},
		"failed":        {err: "timeout", detail: "i/o timeout"},
		"not-listed":    {err: "not_listed"},
		"was-read":      {read: true},
		"was-refused":   {err: "auth", detail: "key refused"},
		"never-checked": {},
	}
	got := EvaluateShard(prev, inv, nodes, now, grace, Shard{}, nil)
	if len(got) != len(want) {
		t.Fatalf("%d statuses, want %d", len(got), len(want))
	}
	for _, s := range got {
		w := want[s.Cluster.ID]
		if s.Nodes.Read() != w.read || s.NodesEvaluated() != w.evaluated || s.Nodes.Err != w.err || s.Nodes.Detail != w.detail {
			t.Errorf("%s: read %v, evaluated %v, err %q, detail %q; want %+v",
				s.Cluster.ID, s.Nodes.Read(), s.NodesEvaluated(), s.Nodes.Err, s.Nodes.Detail, w)
		}
	}
}
