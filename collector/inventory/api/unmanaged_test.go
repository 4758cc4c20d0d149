package api_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestUnmanagedThroughTheAPI: a worker unmanaged after the source saw it in its cluster's map is
// a mapped_vm_expunged that says it was unmanaged, from 4.17 (its VM.UNMANAGE names it as the
// event's resource); its event is its cause without another request, and the gap it leaves is
// not counted again by vm_map_incomplete. An expunged worker stays a count gap, also with a
// VM.UNMANAGE on it under another tenant's account or the root admin's, and so does one whose
// namesake in another account was unmanaged. On 4.16, whose listEvents ignores resourceid and
// answers events without a resource, nothing is named unmanaged. Each VM gone from the listing
// has its events asked for at two reads at most, and never again.
func TestUnmanagedThroughTheAPI(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, release := range []string{cloudstacktest.Release416, cloudstacktest.Release418, cloudstacktest.Release422} {
		t.Run(release, func(t *testing.T) {
			var acme, rival cks
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = release
				acme = addCKS(w, accountCluster("acme"), 1, 4, 0)
				c := accountCluster("rival")
				c.Account = "mallory"
				rival = addCKS(w, c, 1, 1, 0)
				rival.vms[1].Name = acme.vms[4].Name // a namesake of acme's worker
			})
			src := newSource(t, s, api.Options{Now: func() time.Time { return now }})
			mustInventory(t, src) // every VM listed: the source knows the maps

			var unmanage *cloudstacktest.Event
			s.Update(func(w *cloudstacktest.World) {
				unmanage = w.Unmanage(acme.vms[1], now.Add(-time.Minute))
				for _, vm := range acme.vms[2:] {
					vm.State, vm.Removed = "Expunging", true
				}
				// vms[2]: a VM.UNMANAGE on it under another tenant's account and under the root
				// admin's, not the VM's.
				for _, account := range []string{"mallory", cloudstacktest.AdminAccount} {
					w.AddEvent(cloudstacktest.Event{Type: "VM.UNMANAGE", State: "Completed", Account: account, DomainID: domainID, Domain: "ROOT",
						Description: "unmanaging VM", ResourceID: acme.vms[2].ID, ResourceType: "VirtualMachine", Created: now.Add(-time.Minute)})
				}
				// vms[4]: its namesake in mallory's account is unmanaged.
				w.Unmanage(rival.vms[1], now.Add(-time.Minute))
			})
			byResource := release != cloudstacktest.Release416
			for read := 2; read <= 4; read++ {
				before := len(listCalls(s, "listEvents"))
				inv := mustInventory(t, src)
				calls := 0
				for _, c := range listCalls(s, "listEvents")[before:] {
					if c.Get("resourceid") != rival.vms[1].ID {
						calls++
					}
				}
				got := findingsOf(t, inv, "acme")
				unmanagedMsg := strings.Contains(got[acme.vms[1].ID], "but was unmanaged (unmanageVirtualMachine)")
				if unmanagedMsg != byResource {
					t.Errorf("read %d: the unmanaged worker's finding %q, want one that says unmanaged: %v", read, got[acme.vms[1].ID], byResource)
				}
				for _, vm := range acme.vms[2:] {
					if _, ok := got[vm.ID]; ok {
						t.Errorf("read %d: expunged worker %s has a finding %q through the API", read, vm.Name, got[vm.ID])
					}
				}
				missing := 4
				if byResource {
					missing = 3
				}
				if m := got[""]; !strings.HasSuffix(m, fmt.Sprintf(": %d missing or expunged", missing)) {
					t.Errorf("read %d: vm_map_incomplete %q, want %d missing", read, m, missing)
				}
				// Read 2 asks for the four VMs gone; read 3 again for those without an event;
				// read 4 for none.
				want := map[int]int{2: 4, 3: 3, 4: 0}[read]
				if !byResource && read == 3 {
					want = 4
				}
				if calls != want {
					t.Errorf("read %d: %d listEvents calls, want %d", read, calls, want)
				}
			}
			if !byResource {
				return
			}
			before := len(listCalls(s, "listEvents"))
			causes, err := src.Causes(context.Background(), []collector.CauseWant{{
				Cluster: collector.Cluster{ID: acme.cluster.ID, Account: "acme", DomainID: domainID}, ResourceID: acme.vms[1].ID,
				On: collector.CauseOnVM, Types: []string{"VM.DESTROY", "VM.EXPUNGE", "VM.UNMANAGE"}, Since: now.Add(-collector.CauseLookBack),
			}})
			if err != nil || len(causes) != 1 || causes[0].EventID != unmanage.ID || causes[0].Username != cloudstacktest.AdminAccount || causes[0].Account != "acme" {
				t.Errorf("Causes = %+v, %v; want the Completed VM.UNMANAGE %s", causes, err, unmanage.ID)
			}
			if n := len(listCalls(s, "listEvents")) - before; n != 0 {
				t.Errorf("the cause of the unmanaged VM cost %d listEvents calls, want 0", n)
			}
		})
	}
}

// TestUnmanagedRecordedEvents runs the recorded listEvents answers of each release line (a VM's
// Scheduled, Started and Completed VM.UNMANAGE as EventResponse and EventJoinDaoImpl render them:
// no resource before 4.17, resourceid, resourcetype and resourcename from 4.17.0.0, domainpath
// from 4.19.2.0) through the source: the VM they name is unmanaged from 4.18's shape on, and not
// on 4.16's.
func TestUnmanagedRecordedEvents(t *testing.T) {
	for _, line := range []string{"4.16", "4.18", "4.22"} {
		t.Run(line, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "releases", line, "listEvents.json"))
			if err != nil {
				t.Fatal(err)
			}
			var acme cks
			s := startFake(t, func(w *cloudstacktest.World) {
				acme = addCKS(w, accountCluster("acme"), 1, 1, 0)
				acme.vms[1].ID = "b1000000-0000-4000-8000-0000000000a1" // the recorded events' resource
			})
			src := newSource(t, s, api.Options{Now: func() time.Time { return time.Date(2024, 6, 6, 8, 0, 0, 0, time.UTC) }})
			mustInventory(t, src)
			s.Update(func(w *cloudstacktest.World) { acme.vms[1].State, acme.vms[1].Removed = "Expunging", true })
			s.Replay("listEvents", body)
			got := findingsOf(t, mustInventory(t, src), "acme")
			says := strings.Contains(got[acme.vms[1].ID], "was unmanaged")
			if want := line != "4.16"; says != want {
				t.Errorf("findings %q; want the worker named unmanaged: %v", got, want)
			}
		})
	}
}

// findingsOf returns the messages of the VM side's findings of the cluster named name in inv, by
// VM uuid ("" for the cluster's own).
func findingsOf(t *testing.T, inv collector.Inventory, name string) map[string]string {
	t.Helper()
	now := time.Now()
	for _, c := range inv.Clusters {
		if c.Name == name {
			out := map[string]string{}
			for _, f := range collector.Compare(c, collector.NewIndex(inv), collector.NodeList{}, now, time.Minute).VM {
				out[f.VMID] = f.Message
			}
			return out
		}
	}
	t.Fatalf("no cluster %s in the inventory", name)
	return nil
}
