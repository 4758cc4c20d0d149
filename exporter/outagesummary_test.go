package exporter

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// outageCycle is the clusters of one cycle: the first n fail with the reasons given in turn,
// the others are read.
func outageCycle(total int, failing map[int]string) []collector.ClusterStatus {
	out := make([]collector.ClusterStatus, total)
	for i := range out {
		out[i] = collector.ClusterStatus{Cluster: collector.Cluster{ID: fmt.Sprintf("c%02d", i), Name: fmt.Sprintf("cluster-%02d", i)},
			Checked: true, Nodes: collector.NodesRead(nil, nil)}
		if reason, ok := failing[i]; ok {
			out[i].Nodes = collector.NodeList{Err: reason}
		}
	}
	return out
}

// failingFirst makes the first n clusters fail with reason.
func failingFirst(n int, reason string) map[int]string {
	m := make(map[int]string, n)
	for i := range n {
		m[i] = reason
	}
	return m
}

// TestNodeOutageIsOneLine: when the node sides of most clusters (more than half of the checked
// ones, at least outageAtLeast) fail at once, the log has one WARN for it and one INFO when it is
// over, not a WARN and an INFO per cluster; nothing while it lasts, whatever moves within it. A
// smaller failure keeps its per-cluster lines.
func TestNodeOutageIsOneLine(t *testing.T) {
	const total = 20
	partition := failingFirst(15, "timeout")
	partition[15] = "handshake"
	cfg := config.Defaults()
	target := func(collector.Cluster) []any { return nil }
	for _, tc := range []struct {
		name   string
		cycles []map[int]string // the failing clusters of each cycle after a healthy one
		want   []string         // the lines logged, by message (per-cluster lines as "WARN cluster"/"INFO cluster")
		attrs  map[string]string
	}{
		{name: "a partition, and its end", cycles: []map[int]string{partition, partition, failingFirst(17, "timeout"), failingFirst(2, "timeout"), nil},
			want:  []string{"WARN " + msgOutage, "INFO " + msgOutageAgain, "INFO cluster", "INFO cluster"},
			attrs: map[string]string{"failed": "16", "checked": "20", "reasons": "timeout=15 handshake=1", "still_failed": "2"}},
		{name: "a flapping partition", cycles: []map[int]string{partition, nil, partition, nil},
			want: []string{"WARN " + msgOutage, "INFO " + msgOutageAgain, "WARN " + msgOutage, "INFO " + msgOutageAgain}},
		{name: "half of the clusters is not most", cycles: []map[int]string{failingFirst(10, "timeout"), nil},
			want: repeat(10, "WARN cluster", "INFO cluster")},
		{name: "fewer than outageAtLeast", cycles: []map[int]string{failingFirst(9, "timeout")},
			want: repeat(9, "WARN cluster")},
		{name: "refused keys have their own summary", cycles: []map[int]string{failingFirst(16, authReason)},
			want: []string{"WARN The control nodes of most clusters refused the SSH key: check ssh.user and ssh.private_key_file (a cluster's own login user, from CloudStack, wins over ssh.user)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecorder{}
			logger := slog.New(logs)
			prev := outageCycle(total, nil)
			for _, failing := range tc.cycles {
				cur := outageCycle(total, failing)
				logNodeSides(prev, cur, &cfg, target, logger)
				prev = cur
			}
			var got []string
			for _, l := range logs.since(0, slog.LevelInfo) {
				msg := l.Msg
				if l.Attrs["cluster_id"] != "" {
					msg = "cluster"
				}
				got = append(got, l.Level.String()+" "+msg)
				for k, v := range tc.attrs {
					if a, ok := l.Attrs[k]; ok && a != v {
						t.Errorf("%s: %s=%s, want %s", l.Msg, k, a, v)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("logged %d lines %q\nwant %d %q", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

func repeat(n int, lines ...string) []string {
	var out []string
	for _, l := range lines {
		for range n {
			out = append(out, l)
		}
	}
	return out
}

// TestPartitionIsOneLine: the control nodes of 11 of 12 clusters refuse connections at once, as
// in a partition between the exporter and the clusters' network: one WARN and, once they answer
// again, one INFO; no line per cluster.
func TestPartitionIsOneLine(t *testing.T) {
	specs := make([]simulator.ClusterSpec, 12)
	for i := range specs {
		specs[i] = simulator.ClusterSpec{Name: fmt.Sprintf("c%02d", i)}
	}
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	mark := e.logs.mark()
	for _, c := range cs[1:] {
		e.sim.Node(c.ID).SetMode(sshtest.Refuse)
	}
	e.checkNow(2)
	for _, c := range cs[1:] {
		e.sim.Node(c.ID).SetMode(sshtest.Normal)
	}
	e.checkNow(2)
	var got []string
	for _, l := range e.logs.since(mark, slog.LevelInfo) {
		if l.Attrs["cluster_id"] != "" {
			got = append(got, "per-cluster: "+l.Msg)
			continue
		}
		got = append(got, l.Msg)
		if l.Msg == msgOutage && (l.Attrs["failed"] != "11" || l.Attrs["checked"] != "12") {
			t.Errorf("the outage's line: %+v, want failed=11 checked=12", l)
		}
	}
	if want := []string{msgOutage, msgOutageAgain}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("logged %q\nwant %q", got, want)
	}
}
