package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompareMapExcess: one finding per cluster whose map holds more live workers than its size,
// whatever else the map holds; none for a map at its size, one short of it, or with its extra
// rows missing, expunged, etcd or external nodes.
func TestCompareMapExcess(t *testing.T) {
	t.Parallel()
	worker := func(id, state string) MappedVM { return mapped(vm(id, "test-node-"+id, state)) }
	tests := []struct {
		name string
		edit func(c *Cluster)
		want string // the numbers of the message, or "" for no finding
	}{
		{name: "map at its size"},
		{name: "one worker short (vm_map_incomplete's business)", edit: func(c *Cluster) { c.Mapped = c.Mapped[:2] }},
		{name: "HA scale-down left two workers too many (apache/cloudstack#12229)", edit: func(c *Cluster) {
			c.ControlNodes = 3
			c.Mapped = append(c.Mapped, mapped(vm("c2", "test-control-2", "Running")), mapped(vm("c3", "test-control-3", "Running")),
				worker("w3", "Running"), worker("w4", "Stopped"))
		}, want: "has 4 worker VMs in its VM map in CloudStack but its size is 2: 2 more"},
		{name: "extra rows that are missing, expunged or destroyed are other kinds", edit: func(c *Cluster) {
			c.Mapped = append(c.Mapped, MappedVM{Missing: true, InternalID: 9}, MappedVM{ID: "w3", Removed: true},
				worker("w4", "Destroyed"), worker("w5", "Expunging"))
		}},
		{name: "etcd and external nodes are not workers", edit: func(c *Cluster) {
			c.EtcdNodes = 1
			c.Mapped = append(c.Mapped, MappedVM{ID: "e1", Name: "test-etcd-1-18fe76190f4", State: "Running"},
				MappedVM{ID: "e2", Name: "anything", State: "Running", Etcd: true},
				MappedVM{ID: "x1", Name: "my-own-node", State: "Running", External: true})
		}},
		{name: "one extra worker", edit: func(c *Cluster) { c.Mapped = append(c.Mapped, worker("w3", "Running")) },
			want: "has 3 worker VMs in its VM map in CloudStack but its size is 2: 1 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := baseWorld()
			if tt.edit != nil {
				tt.edit(&w.cluster)
			}
			got := compareMapExcess(w.cluster)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Kind != KindVMMapExcess || got[0].VMID != "" || got[0].VMName != "" {
				t.Fatalf("findings %+v, want one vm_map_excess of the cluster", got)
			}
			if msg := got[0].Message; !strings.HasPrefix(msg, "Kubernetes cluster test "+tt.want) || !strings.Contains(msg, "next scale") {
				t.Errorf("message %q, want the numbers %q and the scale it breaks", msg, tt.want)
			}
		})
	}
}

// TestCompareNotRunning: a live mapped VM in any state but Running, past its grace period, in a
// Running or Alert cluster, is one finding naming the VM and its state; one on its way out, a
// young one or one of a cluster in another state is not.
func TestCompareNotRunning(t *testing.T) {
	t.Parallel()
	young := func(created time.Time) bool { return !created.IsZero() && now.Sub(created) < grace }
	tests := []struct {
		name  string
		state string // the cluster's
		edit  func(ms []MappedVM)
		want  []brief
	}{
		{name: "every VM running", state: "Running"},
		{name: "a worker stopped by hand", state: "Alert", edit: func(ms []MappedVM) { ms[1].State = "Stopped" },
			want: []brief{{"mapped_vm_not_running", "w1", "test-node-1a1c6eb8176"}}},
		{name: "the control VM in Error, a worker Starting", state: "Running", edit: func(ms []MappedVM) {
			ms[0].State, ms[2].State = "Error", "Starting"
		}, want: []brief{{"mapped_vm_not_running", "c1", "test-control-1a1c6eb7f00"}, {"mapped_vm_not_running", "w2", "test-node-1a1c6ebf01d"}}},
		{name: "destroyed, expunging, removed and missing rows are mapped_vm_expunged's and mapped_vm_missing's", state: "Alert",
			edit: func(ms []MappedVM) {
				ms[0].State, ms[1].State = "Destroyed", "Expunging"
				ms[2].Removed, ms[2].State = true, "Stopped"
			}},
		{name: "a VM within its grace period", state: "Running", edit: func(ms []MappedVM) {
			ms[1].State, ms[1].Created = "Stopped", now.Add(-time.Minute)
		}},
		{name: "a Stopped cluster's VMs are meant to be stopped", state: "Stopped", edit: func(ms []MappedVM) {
			for i := range ms {
				ms[i].State = "Stopped"
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := baseWorld()
			w.cluster.State = tt.state
			if tt.edit != nil {
				tt.edit(w.cluster.Mapped)
			}
			got := compareNotRunning(w.cluster, young)
			if diff := cmp.Diff(tt.want, briefs(got)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotRunningMessage names the VM, its state and the operation that fails.
func TestNotRunningMessage(t *testing.T) {
	got := notRunningMessage("test", MappedVM{ID: "w1", Name: "test-node-1", State: "Stopped"})
	want := "VM test-node-1 (w1) of Kubernetes cluster test is Stopped in CloudStack, not Running: CloudStack keeps the cluster in Alert, " +
		"and its next upgrade, which reaches every node over SSH, fails until the VM is started"
	if got != want {
		t.Errorf("message\n%s\nwant\n%s", got, want)
	}
}
