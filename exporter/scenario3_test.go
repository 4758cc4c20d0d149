package exporter

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestStaleMapRowThroughTheAPI is scenario 3 as far as the API shows it: a map row inserted for
// a VM of another cluster that is being expunged (Destroyed, not yet removed) is reported once
// with an alert; when the row is removed the VM side matches again. Rows of removed or missing
// VMs are invisible through the API and need the database source.
func TestStaleMapRowThroughTheAPI(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"}, simulator.ClusterSpec{Name: "old"})
	test, old := cs[0], cs[1]
	// Cycles only on request, each after the world has changed: a cycle that read the inventory
	// before the change below and the nodes after it would see a VM that is not a node.
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })

	var row int64
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		vm := w.VMByName(old.VMs[2])
		vm.State = "Destroyed"
		row = vm.InternalID
		for _, c := range w.Clusters {
			if c.ID == old.ID {
				c.VMMap = slices.DeleteFunc(c.VMMap, func(id int64) bool { return id == row })
				c.Size--
			}
			if c.ID == test.ID {
				c.VMMap = append(c.VMMap, row)
			}
		}
	})
	// The other cluster lost that node too: Kubernetes no longer lists it there.
	if _, err := e.sim.StopKubelet(old.ID, old.VMs[2]); err != nil {
		t.Fatal(err)
	}
	want := []string{"test mapped_vm_expunged " + old.VMs[2]}
	e.checkNow(1)
	if f := e.findings(); !slices.Equal(f, want) {
		t.Fatalf("findings: %q, want %q", f, want)
	}
	e.checkNow(2)
	w := e.writes()
	if count(w, "addAnnotation [WARN] VM "+old.VMs[2], "is one of the VMs of Kubernetes cluster test in CloudStack, but has been or is being expunged") != 1 ||
		count(w, "generateAlert VM "+old.VMs[2]) != 1 || len(w) != 2 {
		t.Fatalf("writes: %q", w)
	}

	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		for _, c := range w.Clusters {
			if c.ID == test.ID {
				c.VMMap = slices.DeleteFunc(c.VMMap, func(id int64) bool { return id == row })
			}
		}
	})
	e.checkNow(1)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings after the row was removed: %q", f)
	}
	e.checkNow(2)
	w = e.writes()[2:]
	if count(w, "addAnnotation [INFO] The VM map of Kubernetes cluster test matches the VMs of the cluster in CloudStack again") != 1 || count(w, "generateAlert") != 0 {
		t.Fatalf("writes after the row was removed: %q", w)
	}
}
