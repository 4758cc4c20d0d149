package notifier

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

var t0 = time.Date(2026, 6, 5, 20, 20, 0, 0, time.UTC)

func status(checked, nodes bool, vm, node []collector.Finding) collector.ClusterStatus {
	s := collector.ClusterStatus{Cluster: collector.Cluster{ID: "k1", Name: "test", ZoneID: "z1"},
		Checked: checked, Nodes: collector.NodeList{Err: "timeout"}}.With(vm...).With(node...)
	if nodes {
		s.Nodes = collector.NodesRead(nil, nil)
	}
	return s
}

func finding(kind collector.Kind, id string) collector.Finding {
	return collector.Finding{Kind: kind, VMID: id, VMName: "vm-" + id, Message: string(kind) + " " + id, FirstSeen: t0}
}

func kinds(events []event) []string {
	var out []string
	for _, e := range events {
		if e.Resolved {
			out = append(out, "resolved "+string(e.Side))
		} else {
			out = append(out, "new "+e.Finding.Key())
		}
	}
	return out
}

func TestUpdate(t *testing.T) {
	unmapped := finding(collector.KindUnmappedVM, "w2")
	notNode := finding(collector.KindVMNotANode, "w1")
	expunged := finding(collector.KindMappedVMExpunged, "x1")
	var s state
	steps := []struct {
		name string
		st   collector.ClusterStatus
		want []string
	}{
		{"baseline", status(true, true, nil, nil), nil},
		{"new finding", status(true, true, []collector.Finding{unmapped}, nil), []string{"new unmapped_vm:w2"}},
		{"persists", status(true, true, []collector.Finding{unmapped}, nil), nil},
		{"second finding", status(true, true, []collector.Finding{unmapped, expunged}, nil), []string{"new mapped_vm_expunged:x1"}},
		{"one of two clears: no event", status(true, true, []collector.Finding{expunged}, nil), nil},
		{"node finding", status(true, true, []collector.Finding{expunged}, []collector.Finding{notNode}), []string{"new vm_not_a_node:w1"}},
		{"kubectl unreachable: node side untouched", status(true, false, []collector.Finding{expunged}, nil), nil},
		{"skipped: untouched", status(false, false, nil, nil), nil},
		{"both clear", status(true, true, nil, nil), []string{"resolved vm", "resolved node"}},
		{"comes back: announced again", status(true, true, []collector.Finding{unmapped}, nil), []string{"new unmapped_vm:w2"}},
	}
	for _, step := range steps {
		got := kinds(s.update([]collector.ClusterStatus{step.st}))
		if len(got) != len(step.want) {
			t.Fatalf("%s: events %v, want %v", step.name, got, step.want)
		}
		for i := range got {
			if got[i] != step.want[i] {
				t.Fatalf("%s: events %v, want %v", step.name, got, step.want)
			}
		}
	}
	if s.update(nil); len(s.Clusters) != 0 {
		t.Fatalf("state of a cluster that is gone was kept: %+v", s.Clusters)
	}
}

func TestClearedAlertIsArchived(t *testing.T) {
	var s state
	f := finding(collector.KindUnmappedVM, "w2")
	s.update([]collector.ClusterStatus{status(true, true, []collector.Finding{f}, nil)})
	a := s.Clusters["k1"].Sides[collector.SideVM].Findings[f.Key()]
	a.AlertType, a.Alert.Done = 20001, true
	s.update([]collector.ClusterStatus{status(true, true, nil, nil)})
	if len(s.Archive) != 1 || s.Archive[0] != 20001 {
		t.Fatalf("archive queue %v, want [20001]", s.Archive)
	}
}

func TestFirstSeenRemembered(t *testing.T) {
	n := &Notifier{}
	f := finding(collector.KindUnmappedVM, "w2")
	n.state.update([]collector.ClusterStatus{status(true, true, []collector.Finding{f}, nil)})
	later := f
	later.FirstSeen = t0.Add(time.Hour)
	st := []collector.ClusterStatus{status(true, true, []collector.Finding{later}, nil)}
	n.state.update(st)
	if got := st[0].On(collector.SideVM)[0].FirstSeen; !got.Equal(later.FirstSeen) {
		t.Fatalf("update changed the status's first seen to %v: the notifier only reads statuses", got)
	}
	if got, ok := n.FirstSeen("k1", collector.SideVM, f.Key()); !ok || !got.Equal(t0) {
		t.Fatalf("FirstSeen = %v, %v; want %v, true", got, ok, t0)
	}
	if _, ok := n.FirstSeen("k1", collector.SideNode, f.Key()); ok {
		t.Fatal("FirstSeen found a finding on the other side")
	}
}

func TestAllocateAvoidsTypesInUse(t *testing.T) {
	r := TypeRange{Min: 20000, Max: 20003} // three usable types, 20003 is the summary's
	var s state
	used := map[int]bool{}
	var statuses []collector.ClusterStatus
	for _, id := range []string{"a", "b", "c"} {
		f := finding(collector.KindUnmappedVM, id)
		statuses = append(statuses, collector.ClusterStatus{Cluster: collector.Cluster{ID: "k" + id, Name: id}, Checked: true}.With(f))
	}
	s.update(statuses)
	for _, cs := range s.Clusters {
		for key, a := range cs.Sides[collector.SideVM].Findings {
			a.AlertType = allocate(r, s.typesInUse(), cs.Name, key)
			if a.AlertType < r.Min || a.AlertType >= r.Max || used[a.AlertType] {
				t.Fatalf("type %d allocated twice or out of range", a.AlertType)
			}
			used[a.AlertType] = true
		}
	}
	if got := allocate(r, s.typesInUse(), "x", "y"); got != 0 {
		t.Fatalf("allocate with every type in use = %d, want 0", got)
	}
}
