package database

import (
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestUnmanagedFromTheDatabase: a worker removed by unmanageVirtualMachine (state Expunging,
// removed set, as an expunge leaves it) is a mapped_vm_expunged that says it was unmanaged where
// the event table names the VM as the VM.UNMANAGE event's resource (4.17 on); an expunged worker
// is not, nor is a worker whose VM.UNMANAGE event was recorded under another account. Before
// 4.17 both read as expunged.
func TestUnmanagedFromTheDatabase(t *testing.T) {
	for _, v := range []mariadbtest.Version{mariadbtest.V4_16, mariadbtest.V4_17, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "test", Account: "alice", Control: 1, Workers: 3, Created: created})
			unmanaged, expunged, spoofed := s.Workers[0], s.Workers[1], s.Workers[2]
			for _, vm := range s.Workers {
				vm.State, vm.Removed = "Expunging", true
			}
			unmanage := func(vm *cloudstacktest.VM, account string) {
				e := w.AddEvent(cloudstacktest.Event{Type: "VM.UNMANAGE", State: "Completed", Level: "INFO", Description: "unmanaging VM",
					ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: created.Add(time.Hour)}.Of(s.Cluster))
				e.Account = account
			}
			unmanage(unmanaged, "alice")
			unmanage(spoofed, "mallory")
			src, _ := load(t, w, v, Options{})
			got := map[string]string{}
			for _, c := range inventory(t, src).Clusters {
				for _, f := range collector.Compare(c, collector.NewIndex(collector.Inventory{}), collector.NodeList{}, now, 15*time.Minute).VM {
					if f.Kind == collector.KindMappedVMExpunged {
						got[f.VMName] = f.Message
					}
				}
			}
			for _, vm := range []*cloudstacktest.VM{unmanaged, expunged, spoofed} {
				says := strings.Contains(got[vm.Name], "was unmanaged") && strings.Contains(got[vm.Name], "deleting the cluster fails")
				want := vm == unmanaged && v >= mariadbtest.V4_17
				if got[vm.Name] == "" || says != want {
					t.Errorf("%s: mapped_vm_expunged %q, want one that says unmanaged: %v", vm.Name, got[vm.Name], want)
				}
			}
		})
	}
}
