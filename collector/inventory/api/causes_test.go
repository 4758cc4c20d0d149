package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestCauses looks up the events that explain new findings through listEvents by resource, on a
// release that filters by it (4.17 on) and one that does not: the owner's VM.EXPUNGE explains the
// expunged VM even where another tenant recorded a newer one on the same VM uuid; the root
// admin's VM.STOP explains the stopped VM; a failed scale explains the cluster's map; a flood of
// other events on a VM costs at most two pages and explains nothing; a Scheduled event does not
// count; the event that started a re-check is asked for by id first.
func TestCauses(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, release := range []string{cloudstacktest.Release416, cloudstacktest.Release418, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			var acme cks
			var expunge, stop, scale, trigger *cloudstacktest.Event
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				acme = addCKS(w, accountCluster("acme"), 1, 4, 0)
				on := func(vm *cloudstacktest.VM, typ string, at time.Time) cloudstacktest.Event {
					e := cloudstacktest.Event{Type: typ, State: "Completed", Description: typ + " of " + vm.ID, ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at}
					return e.Of(acme.cluster)
				}
				e := on(acme.vms[1], "VM.EXPUNGE", now.Add(-3*time.Minute))
				e.Username = "bob"
				expunge = w.AddEvent(e)
				// Another tenant's event on the same VM uuid, newer.
				hostile := on(acme.vms[1], "VM.EXPUNGE", now.Add(-time.Minute))
				hostile.Account, hostile.Domain, hostile.DomainID = "mallory", "ROOT", "d0000000-0000-4000-8000-00000000000f"
				w.AddEvent(hostile)
				// The root admin stopped vms[2]; a tenant's own Scheduled stop after it is no cause.
				admin := on(acme.vms[2], "VM.STOP", now.Add(-2*time.Minute))
				admin.Account, admin.Domain, admin.DomainID = cloudstacktest.AdminAccount, "ROOT", "d0000000-0000-4000-8000-00000000000a"
				stop = w.AddEvent(admin)
				sched := on(acme.vms[2], "VM.STOP", now.Add(-time.Minute))
				sched.State = "Scheduled"
				w.AddEvent(sched)
				// A failed scale of the cluster.
				sc := cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", State: "Completed", Level: "ERROR",
					Description: "Scaling Kubernetes cluster ID: " + acme.cluster.ID, ResourceID: acme.cluster.ID,
					ResourceType: "KubernetesCluster", Created: now.Add(-4 * time.Minute)}.Of(acme.cluster)
				scale = w.AddEvent(sc)
				// vms[3]: expunged long ago, then started and stopped a thousand times.
				w.AddEvent(on(acme.vms[3], "VM.EXPUNGE", now.Add(-time.Hour)))
				for i := range 1000 {
					w.AddEvent(on(acme.vms[3], "VM.START", now.Add(-time.Duration(i)*time.Second)))
				}
				// vms[4]: the event that started a re-check, past the first pages of its VM's events.
				trigger = w.AddEvent(on(acme.vms[4], "VM.DESTROY", now.Add(-50*time.Minute)))
				for i := range 100 {
					w.AddEvent(on(acme.vms[4], "VM.REBOOT", now.Add(-time.Duration(i)*time.Second)))
				}
			})
			src := newSource(t, s, api.Options{})
			cluster := collector.Cluster{ID: acme.cluster.ID, Account: "acme", DomainID: domainID}
			vmWant := func(i int, types ...string) collector.CauseWant {
				return collector.CauseWant{Cluster: cluster, ResourceID: acme.vms[i].ID, On: collector.CauseOnVM, Types: types, Since: now.Add(-collector.CauseLookBack)}
			}
			wants := []collector.CauseWant{
				vmWant(1, "VM.EXPUNGE", "VM.DESTROY"),
				vmWant(2, "VM.STOP"),
				{Cluster: cluster, ResourceID: acme.cluster.ID, On: collector.CauseOnCluster, Types: []string{"KUBERNETES.CLUSTER.SCALE"}, Since: now.Add(-collector.CauseLookBack)},
				vmWant(3, "VM.EXPUNGE"),
			}
			withTrigger := vmWant(4, "VM.DESTROY")
			withTrigger.Triggers = []string{trigger.ID}
			wants = append(wants, withTrigger)

			before := len(listCalls(s, "listEvents"))
			got, err := src.Causes(context.Background(), wants)
			if err != nil {
				t.Fatalf("Causes: %v", err)
			}
			calls := listCalls(s, "listEvents")[before:]
			byResource := release != cloudstacktest.Release416
			if !byResource {
				for i, c := range got {
					if !c.IsZero() {
						t.Errorf("want %d: cause %+v on a release that does not filter by resource", i, c)
					}
				}
				if len(calls) > 6 { // one page for each, and the trigger by id
					t.Errorf("%d listEvents calls on a release without resource filter, want at most 6", len(calls))
				}
			} else {
				check := func(i int, e *cloudstacktest.Event, user string) {
					t.Helper()
					want := collector.Cause{EventID: e.ID, Type: e.Type, Description: e.Description, Username: user, Account: e.Account, Created: e.Created.UTC()}
					if got[i] != want {
						t.Errorf("want %d: cause %+v, want %+v", i, got[i], want)
					}
				}
				check(0, expunge, "bob")
				check(1, stop, cloudstacktest.AdminAccount)
				check(2, scale, "acme")
				if !got[3].IsZero() {
					t.Errorf("the flooded VM has a cause: %+v", got[3])
				}
				perResource := map[string]int{}
				for _, c := range calls {
					perResource[c.Get("resourceid")+c.Get("id")]++
				}
				if n := perResource[acme.vms[3].ID]; n != 2 {
					t.Errorf("the flooded VM cost %d listEvents calls, want 2 (its pages' bound)", n)
				}
				if perResource[trigger.ID] != 1 || perResource[acme.vms[4].ID] != 0 {
					t.Errorf("the trigger: %v", perResource)
				}
			}
			// The trigger is found by id, where its answer names its resource (4.17 on).
			if byResource && got[4].EventID != trigger.ID || !byResource && !got[4].IsZero() {
				t.Errorf("the re-check's trigger: cause %+v, want event %s", got[4], trigger.ID)
			}
			for _, c := range calls {
				if c.Get("listall") != "true" || c.Get("projectid") != "" {
					t.Errorf("listEvents %v: want listall and no project for an account's cluster", c)
				}
			}
		})
	}
}

// TestCauseOfAnotherTenantIsNone: a tenant who owns the VM uuid's neighbour cannot give the
// victim's finding a cause: its events on the victim's VM, whatever they say, are left out, and
// with nothing of the owner's the finding has none.
func TestCauseOfAnotherTenantIsNone(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	var victim cks
	s := startFake(t, func(w *cloudstacktest.World) {
		w.Release = cloudstacktest.Release422
		victim = addCKS(w, accountCluster("victim"), 1, 1, 0)
		for i, state := range []string{"Completed", "Created", "Scheduled"} {
			w.AddEvent(cloudstacktest.Event{Type: "VM.EXPUNGE", State: state, Account: "mallory", DomainID: domainID, Domain: "ROOT",
				Description: fmt.Sprintf("Expunging Vm. Vm Id: %s\nLast change: forged %s", victim.vms[1].ID, strings.Repeat("!", 5000)),
				ResourceID:  victim.vms[1].ID, ResourceType: "VirtualMachine", Created: now.Add(-time.Duration(i) * time.Minute)})
		}
	})
	src := newSource(t, s, api.Options{})
	got, err := src.Causes(context.Background(), []collector.CauseWant{{
		Cluster:    collector.Cluster{ID: victim.cluster.ID, Account: "acme", DomainID: domainID},
		ResourceID: victim.vms[1].ID, On: collector.CauseOnVM, Types: []string{"VM.EXPUNGE"}, Since: now.Add(-collector.CauseLookBack),
	}})
	if err != nil || len(got) != 1 || !got[0].IsZero() {
		t.Errorf("Causes = %+v, %v; want no cause", got, err)
	}
}
