package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompareOfferings: one offering_missing per cluster whose node types' offerings include a
// removed, unlisted or inactive one, its message naming each such offering with its node types
// and what fails; none while every offering is active, when the cluster names none, or when the
// offerings were not read.
func TestCompareOfferings(t *testing.T) {
	t.Parallel()
	listed := Offerings{Read: true, ByID: map[string]Offering{
		"o-small":   {ID: "o-small", Name: "small"},
		"o-retired": {ID: "o-retired", Name: "retired", Inactive: true},
		"o-gone":    {ID: "o-gone", Name: "gone", Removed: true},
		"o-etcd":    {ID: "o-etcd", Name: "etcd"},
	}}
	tests := []struct {
		name      string
		offerings []NodeOffering
		read      Offerings
		want      []string // parts of the message, in order; nil: no finding
	}{
		{name: "every offering active", offerings: NodeOfferings("o-small", map[string]string{NodeEtcd: "o-etcd"}, 1), read: listed},
		{name: "no offering recorded (a cluster CKS did not deploy)", read: listed},
		{name: "the cluster's offering removed (database)", offerings: NodeOfferings("o-gone", nil, 0), read: listed,
			want: []string{"Kubernetes cluster prod: the service offering gone (o-gone) of its control and worker nodes is removed in CloudStack", "next scale of the cluster fails"}},
		{name: "the cluster's offering not listed (API: removed)", offerings: NodeOfferings("o-unlisted", nil, 0), read: listed,
			want: []string{"the service offering o-unlisted of its control and worker nodes is removed in CloudStack"}},
		{name: "4.21: the worker's removed, the control nodes' inactive", read: listed,
			offerings: NodeOfferings("o-small", map[string]string{NodeControl: "o-retired", NodeWorker: "o-gone", NodeEtcd: "o-etcd"}, 1),
			want: []string{"the service offering retired (o-retired) of its control nodes is inactive in CloudStack",
				"; the service offering gone (o-gone) of its worker nodes is removed in CloudStack"}},
		{name: "4.21: the etcd nodes fall back to the cluster's inactive offering", read: listed,
			offerings: NodeOfferings("o-retired", map[string]string{NodeControl: "o-small", NodeWorker: "o-small"}, 1),
			want:      []string{"the service offering retired (o-retired) of its etcd nodes is inactive"}},
		{name: "offerings not read: nothing is compared", offerings: NodeOfferings("o-gone", nil, 0), read: Offerings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareOfferings(Cluster{ID: "k1", Name: "prod", Offerings: tt.offerings}, tt.read)
			if tt.want == nil {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Kind != KindOfferingMissing || got[0].VMID != "" || got[0].VMName != "" {
				t.Fatalf("findings %+v, want one offering_missing of the cluster", got)
			}
			msg, at := got[0].Message, 0
			for _, part := range tt.want {
				i := strings.Index(msg[at:], part)
				if i < 0 {
					t.Fatalf("message %q lacks %q after position %d", msg, part, at)
				}
				at += i + len(part)
			}
		})
	}
}

// TestOfferingsMatchedByUUIDOnly: a tenant's own offering named like the victim's never stands in
// for it, nor makes the victim's finding: the victim's removed offering is reported while the
// tenant's active offering of the same name is listed, and the victim's active offering is not
// reported while the tenant's namesake is removed. Through Evaluate the victim's finding resolves
// only when its own offering is active again.
func TestOfferingsMatchedByUUIDOnly(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	victim := Cluster{ID: "k1", Name: "victim", State: "Running", Offerings: NodeOfferings("o-victim", nil, 0)}
	mallory := Cluster{ID: "k2", Name: "mallory", State: "Running", Account: "mallory", Offerings: NodeOfferings("o-mallory", nil, 0)}
	for _, tt := range []struct {
		name          string
		victimRemoved bool
		want          map[string]bool // cluster name -> has offering_missing
	}{
		{name: "the victim's offering removed, the tenant's namesake active", victimRemoved: true, want: map[string]bool{"victim": true}},
		{name: "the tenant's namesake removed, the victim's active", want: map[string]bool{"mallory": true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read := Offerings{Read: true, ByID: map[string]Offering{
				"o-victim":  {ID: "o-victim", Name: "small", Removed: tt.victimRemoved},
				"o-mallory": {ID: "o-mallory", Name: "small", Removed: !tt.victimRemoved},
			}}
			inv := Inventory{Clusters: []Cluster{victim, mallory}, Offerings: read}
			got := map[string]bool{}
			for _, s := range Evaluate(nil, inv, nil, now, time.Minute) {
				if len(s.On(SideCluster)) > 0 {
					got[s.Cluster.Name] = true
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("clusters with offering_missing (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOfferingFindingKeptWhileUnread: the cluster side's finding stays, with its first sighting,
// while the offerings cannot be read, and clears once they are read and active.
func TestOfferingFindingKeptWhileUnread(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	c := Cluster{ID: "k1", Name: "prod", State: "Running", Offerings: NodeOfferings("o1", nil, 0)}
	gone := Offerings{Read: true, ByID: map[string]Offering{"o1": {ID: "o1", Name: "small", Removed: true}}}
	first := Evaluate(nil, Inventory{Clusters: []Cluster{c}, Offerings: gone}, nil, now, time.Minute)
	if len(first[0].On(SideCluster)) != 1 {
		t.Fatalf("cluster side %+v, want the finding", first[0].On(SideCluster))
	}
	kept := Evaluate(first, Inventory{Clusters: []Cluster{c}}, nil, now.Add(time.Minute), time.Minute)
	if diff := cmp.Diff(first[0].On(SideCluster), kept[0].On(SideCluster)); diff != "" {
		t.Errorf("offerings unread: the finding changed (-want +got):\n%s", diff)
	}
	active := Offerings{Read: true, ByID: map[string]Offering{"o1": {ID: "o1", Name: "small"}}}
	cleared := Evaluate(kept, Inventory{Clusters: []Cluster{c}, Offerings: active}, nil, now.Add(2*time.Minute), time.Minute)
	if got := cleared[0].On(SideCluster); len(got) != 0 {
		t.Errorf("offering active again: the cluster side kept %+v", got)
	}
}

// TestUnmanagedMessage: a mapped VM removed by unmanageVirtualMachine is mapped_vm_expunged
// that says it was unmanaged and that deleting the cluster fails; an expunged one keeps its text.
func TestUnmanagedMessage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	c := Cluster{ID: "k1", Name: "prod", State: "Alert", ControlNodes: 1, WorkerNodes: 2, MapRowsVisible: true, Mapped: []MappedVM{
		{ID: "c1", Name: "prod-control-1", State: "Running"},
		{ID: "w1", Name: "prod-node-1", State: "Expunging", Removed: true, Unmanaged: true},
		{ID: "w2", Name: "prod-node-2", State: "Expunging", Removed: true},
	}}
	got := map[string]string{}
	for _, f := range Compare(c, NewIndex(Inventory{}), NodeList{}, now, time.Minute).VM {
		if f.Kind == KindMappedVMExpunged {
			got[f.VMID] = f.Message
		}
	}
	if m := got["w1"]; !strings.Contains(m, "VM prod-node-1 (w1) is one of the VMs of Kubernetes cluster prod in CloudStack, but was unmanaged") ||
		!strings.Contains(m, "deleting the cluster fails") {
		t.Errorf("unmanaged VM's message %q", m)
	}
	if m := got["w2"]; m != "VM prod-node-2 (w2) is one of the VMs of Kubernetes cluster prod in CloudStack, but has been or is being expunged" {
		t.Errorf("expunged VM's message %q", m)
	}
}
