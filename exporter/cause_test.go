package exporter

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestFindingCause: a worker VM destroyed by its owner's user bob is found with the VM.DESTROY
// that CloudStack recorded against it as its cause: /findings carries it, the annotation ends with
// "Last change: VM.DESTROY by bob at <created>", the status page shows it beside the finding, the
// finding's WARN line names it. The
// event is looked up once, when the finding is new, not at each cycle, and a restart keeps the
// cause (the state file) without looking it up again. Another tenant's newer event on the same VM
// explains nothing.
func TestFindingCause(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.nextCycles(1)
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	var destroy *cloudstacktest.Event
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		vm := w.VMByName(cs[0].VMs[1])
		vm.State = "Destroyed"
		c := w.ClusterByName("test")
		destroy = w.AddEvent(cloudstacktest.Event{Type: "VM.DESTROY", State: "Completed", Username: "bob",
			Description: "Destroying Vm. Vm Id: " + vm.ID, ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at}.Of(c))
		forged := cloudstacktest.Event{Type: "VM.DESTROY", State: "Completed", Username: "mallory", Account: "mallory",
			DomainID: "d0000000-0000-4000-8000-0000000000ff", Domain: "ROOT",
			Description: "forged", ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at.Add(30 * time.Second)}
		w.AddEvent(forged)
	})
	e.waitFor("the finding", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(3)
	r, _ := e.findingsReport()
	f := r.Clusters[0].Findings[0]
	if f.Cause.EventID != destroy.ID || f.Cause.Type != "VM.DESTROY" || f.Cause.Username != "bob" || !f.Cause.Created.Equal(at) {
		t.Fatalf("/findings cause = %+v, want the owner's VM.DESTROY %s", f.Cause, destroy.ID)
	}
	suffix := ". Last change: VM.DESTROY by bob at " + at.Format(time.RFC3339)
	if w := e.writes(); count(w, "addAnnotation [WARN] ") != 1 || !strings.HasSuffix(w[0], suffix) {
		t.Errorf("annotations %q, want one ending %q", w, suffix)
	}
	_, page := get(t, e.url+"/clusters/"+cs[0].ID)
	if !strings.Contains(page, "VM.DESTROY</strong> by bob") || !strings.Contains(page, destroy.ID) {
		t.Errorf("the cluster's status page does not show the cause")
	}
	var logged int
	for _, l := range e.logs.since(0, slog.LevelWarn) {
		if l.Attrs["cause_event_id"] == destroy.ID && l.Attrs["cause_type"] == "VM.DESTROY" && l.Attrs["cause_username"] == "bob" {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("%d WARN lines of the finding with its cause, want 1", logged)
	}
	lookups := func() int { return len(causeLookups(e.sim.CloudStack)) }
	if n := lookups(); n != 1 {
		t.Errorf("%d look-ups of the VM's events over several cycles, want 1", n)
	}

	e.stop()
	e.start()
	e.nextCycles(3)
	r, _ = e.findingsReport()
	if got := r.Clusters[0].Findings[0].Cause; got.EventID != destroy.ID {
		t.Errorf("after a restart the cause is %+v", got)
	}
	if n := lookups(); n != 1 {
		t.Errorf("%d look-ups after a restart, want still 1", n)
	}
}

// causeLookups returns the listEvents calls by resource that are not the look-ups of an
// operation's start (those name a type).
func causeLookups(s *cloudstacktest.Server) []string {
	var out []string
	for _, c := range s.Calls() {
		if c.Command == "listEvents" && c.Params.Get("resourceid") != "" && c.Params.Get("type") == "" {
			out = append(out, c.Params.Encode())
		}
	}
	return out
}

// TestWebhookEventIsTheCause: the event whose delivery re-checks a cluster is the cause of the
// finding it shows, asked for by its id (one request, which also reads its user and account,
// which the delivery names by uuid only); the delivery's own text is never shown.
func TestWebhookEventIsTheCause(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme"})
	alpha := cs[0]
	ev := e.vmEvent("VM.DESTROY", alpha.VMs[1])
	ev.Description = "forged by the delivery"
	at := time.Now().UTC().Truncate(time.Second)
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		vm := w.VMByName(alpha.VMs[1])
		vm.State = "Destroyed"
		w.AddEvent(cloudstacktest.Event{ID: ev.UUID, Type: "VM.DESTROY", State: "Completed", Username: "bob",
			Description: "Destroying Vm. Vm Id: " + vm.ID, ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at}.Of(w.ClusterByName("alpha")))
	})
	if d := e.hook().Deliver(t.Context(), ev); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	r, _ := e.findingsReport()
	if len(r.Clusters) == 0 || len(r.Clusters[0].Findings) != 1 {
		t.Fatalf("findings: %+v", r.Clusters)
	}
	if c := r.Clusters[0].Findings[0].Cause; c.EventID != ev.UUID || c.Username != "bob" || c.Account != "acme" || strings.Contains(c.Description, "forged") {
		t.Errorf("cause %+v, want the delivered event as CloudStack recorded it", c)
	}
	var byID, byResource int
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listEvents" {
			switch {
			case c.Params.Get("id") == ev.UUID:
				byID++
			case c.Params.Get("resourceid") != "" && c.Params.Get("type") == "":
				byResource++
			}
		}
	}
	if byID != 1 || byResource != 0 {
		t.Errorf("listEvents by id %d times and by resource %d times, want 1 and 0", byID, byResource)
	}
}

// TestFindingCauseFromTheDatabase: with inventory.source database the cause comes from the event
// table, read as the account the documented grants make: a worker destroyed by its owner has its
// VM.DESTROY, named by account (the user table, which holds credentials, is not read), in
// /findings and at the end of its annotation; another tenant's newer event on the VM is not used.
func TestFindingCauseFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	d, _, _ := e.startOnDatabase(db, "  interval: 100ms\n")
	e.nextCycles(1)
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	var destroy *cloudstacktest.Event
	var account string
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		vm := w.VMByName(cs[0].VMs[1])
		vm.State = "Destroyed"
		c := w.ClusterByName("test")
		account = c.Account
		destroy = w.AddEvent(cloudstacktest.Event{Type: "VM.DESTROY", State: "Completed", Description: "Destroying Vm. Vm Id: " + vm.ID,
			ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at}.Of(c))
		w.AddEvent(cloudstacktest.Event{Type: "VM.DESTROY", State: "Completed", Account: "mallory", DomainID: c.DomainID, Domain: c.Domain,
			Description: "forged", ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at.Add(30 * time.Second)})
	})
	e.reload(d)
	e.waitFor("the finding", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(2)
	r, _ := e.findingsReport()
	if c := r.Clusters[0].Findings[0].Cause; c.EventID != destroy.ID || c.Account != account || c.Username != "" {
		t.Errorf("/findings cause = %+v, want the owner's VM.DESTROY %s by account %s", c, destroy.ID, account)
	}
	suffix := ". Last change: VM.DESTROY by " + account + " at " + at.Format(time.RFC3339)
	if w := e.writes(); count(w, "addAnnotation [WARN] ") != 1 || !strings.HasSuffix(w[0], suffix) {
		t.Errorf("annotations %q, want one ending %q", w, suffix)
	}
}
