package exporter

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestUnmanagedThroughTheAPIScenario: through the API source, a worker that an admin unmanages
// (listed nowhere afterwards, like an expunged one) is a mapped_vm_expunged that says it was
// unmanaged, announced once, with its VM.UNMANAGE as its cause (one look-up of its events serves
// both); it still runs, so its Kubernetes node has no VM in CloudStack. Beside it, a worker that
// was expunged and on which another tenant recorded a VM.UNMANAGE stays a count gap of the map
// (vm_map_incomplete), never named unmanaged.
func TestUnmanagedThroughTheAPIScenario(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Account: "acme", Workers: 3})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.baseline(nil)
	unmanagedName, expungedName := cs[0].VMs[1], cs[0].VMs[2]
	var unmanage *cloudstacktest.Event
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		at := time.Now().Add(-time.Minute)
		unmanage = w.Unmanage(w.VMByName(unmanagedName), at)
		vm := w.VMByName(expungedName)
		vm.State, vm.Removed = "Expunging", true
		w.AddEvent(cloudstacktest.Event{Type: "VM.UNMANAGE", State: "Completed", Account: "mallory", DomainID: vm.DomainID, Domain: vm.Domain,
			Description: "unmanaging VM", ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at})
	})
	e.checkNow(3)
	want := []string{"test mapped_vm_expunged " + unmanagedName, "test node_without_vm " + expungedName,
		"test node_without_vm " + unmanagedName, "test vm_map_incomplete "}
	slices.Sort(want)
	if f := e.findings(); !slices.Equal(f, want) {
		t.Fatalf("findings %q, want %q", f, want)
	}
	r, _ := e.findingsReport()
	var found bool
	for _, f := range r.Clusters[0].Findings {
		switch f.Kind {
		case "mapped_vm_expunged":
			found = true
			if !strings.Contains(f.Message, "but was unmanaged (unmanageVirtualMachine)") || f.Cause.EventID != unmanage.ID || f.Cause.Type != "VM.UNMANAGE" {
				t.Errorf("the unmanaged worker's finding %q with cause %+v, want it named unmanaged with %s", f.Message, f.Cause, unmanage.ID)
			}
		case "vm_map_incomplete":
			if !strings.HasSuffix(f.Message, ": 1 missing or expunged") {
				t.Errorf("vm_map_incomplete %q, want the expunged worker's gap only", f.Message)
			}
		}
	}
	if !found {
		t.Fatalf("no mapped_vm_expunged in /findings")
	}
	if n := count(e.writes(), "addAnnotation [WARN] VM "+unmanagedName, "but was unmanaged"); n != 1 {
		t.Errorf("%d annotations of the unmanaged worker, want 1: %q", n, e.writes())
	}
	var lookups int
	for _, c := range causeLookups(e.sim.CloudStack) {
		if strings.Contains(c, "resourceid=") && !strings.Contains(c, "KubernetesCluster") {
			lookups++
		}
	}
	// Each worker gone from the listing: asked for at the first cycle after, the expunged one
	// once more at the next, then never; the unmanaged one's cause costs nothing more.
	if lookups != 3 {
		t.Errorf("%d look-ups of the VMs' events, want 3: %q", lookups, causeLookups(e.sim.CloudStack))
	}
}

// TestUnmanagedByItsEvent: the webhook's delivery of a worker's VM.UNMANAGE re-checks its
// cluster, whose re-check names the worker unmanaged with that event as its cause: one look-up of
// the VM's events (by the VM as resource), none by the delivery's id.
func TestUnmanagedByItsEvent(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme"})
	alpha := cs[0]
	ev := e.vmEvent("VM.UNMANAGE", alpha.VMs[1])
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		done := w.Unmanage(w.VMByName(alpha.VMs[1]), time.Now())
		done.ID = ev.UUID
	})
	if d := e.hook().Deliver(t.Context(), ev); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	r, _ := e.findingsReport()
	var found bool
	for _, c := range r.Clusters {
		for _, f := range c.Findings {
			if f.Kind == "mapped_vm_expunged" {
				found = strings.Contains(f.Message, "was unmanaged") && f.Cause.EventID == ev.UUID && f.Cause.Account == "acme"
			}
		}
	}
	if !found {
		t.Errorf("findings %+v: want the worker named unmanaged with its delivered VM.UNMANAGE as cause", r.Clusters)
	}
	var byID, byResource int
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listEvents" {
			switch {
			case c.Params.Get("id") != "":
				byID++
			case c.Params.Get("resourcetype") == "VirtualMachine":
				byResource++
			}
		}
	}
	if byID != 0 || byResource != 1 {
		t.Errorf("listEvents by id %d times and by the VM %d times, want 0 and 1", byID, byResource)
	}
}
