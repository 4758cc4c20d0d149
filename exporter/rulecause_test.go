package exporter

import (
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// deleteSSHRule deletes the SSH port-forwarding rule of VM vm of cluster c, as its tenant does,
// and records CloudStack's Completed NET.RULEDELETE of it under account (the cluster's owner when
// empty) by user. It returns the event, delivered by the webhook as CloudStack delivers it: its
// entity the rule (the call's context names it; the rule's row itself is gone, so listEvents
// names no resource for it).
func (e *env) deleteSSHRule(c simulator.Cluster, vm, account, user string) cloudstacktest.ActionEvent {
	e.t.Helper()
	var ruleID string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		id := w.VMByName(vm).ID
		for _, r := range w.PortForwardingRules {
			if r.VirtualMachineID == id && r.PrivatePort == 22 {
				ruleID = r.ID
			}
		}
	})
	if _, err := e.sim.RemoveSSHRule(c.ID, vm); err != nil {
		e.t.Fatal(err)
	}
	ev := cloudstacktest.ActionEvent{UUID: newUUID(), Type: "NET.RULEDELETE", Status: "Completed", Entity: "FirewallRule", EntityUUID: ruleID,
		UserUUID: newUUID(), AccountUUID: newUUID(), Description: "Deleting port forwarding rule for ID=17", Created: time.Now(),
		Resources: map[string]string{"FirewallRule": ruleID}}
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		rec := cloudstacktest.Event{ID: ev.UUID, Type: ev.Type, State: "Completed", Username: user, Description: ev.Description,
			ResourceID: ruleID, ResourceType: "FirewallRule", Created: ev.Created.UTC().Truncate(time.Second)}.Of(w.ClusterByName(c.Name))
		if account != "" {
			rec.Account = account
		}
		w.AddEvent(rec)
	})
	return ev
}

// ruleLookups counts the listEvents calls that name rule as their resource: CloudStack refuses
// them for a deleted rule (431 "Invalid resourceid").
func ruleLookups(s *cloudstacktest.Server, rule string) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Command == "listEvents" && c.Params.Get("resourceid") == rule {
			n++
		}
	}
	return n
}

// TestRuleDeletionIsTheCause: a tenant's user deletes the SSH port-forwarding rule of a node;
// CloudStack's webhook delivers the NET.RULEDELETE, which names the rule, and the re-check's
// network_rule_missing carries that event as its cause, asked for by id (one request; the rule's
// uuid is never asked for, which CloudStack refuses once the rule is gone). The same deletion
// recorded under another account explains nothing, even delivered naming the victim's rule.
func TestRuleDeletionIsTheCause(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme", NetworkRules: true, Workers: 2},
		simulator.ClusterSpec{Name: "beta", Account: "globex", NetworkRules: true})
	alpha := cs[0]
	own := e.deleteSSHRule(alpha, alpha.VMs[1], "", "bob")
	if d := e.hook().Deliver(t.Context(), own); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	forged := e.deleteSSHRule(alpha, alpha.VMs[2], "globex", "mallory")
	if d := e.hook().Deliver(t.Context(), forged); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the second re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 2 })
	want := []string{"alpha network_rule_missing " + alpha.VMs[1], "alpha network_rule_missing " + alpha.VMs[2]}
	slices.Sort(want)
	if got := e.findings(); !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	r, _ := e.findingsReport()
	for _, f := range r.Clusters[0].Findings {
		switch f.VMName {
		case alpha.VMs[1]:
			if f.Cause.EventID != own.UUID || f.Cause.Type != "NET.RULEDELETE" || f.Cause.Username != "bob" || f.Cause.Account != "acme" {
				t.Errorf("cause of the deleted rule %+v, want the delivered NET.RULEDELETE %s by bob", f.Cause, own.UUID)
			}
		case alpha.VMs[2]:
			if !f.Cause.IsZero() {
				t.Errorf("another account's deletion is the cause: %+v", f.Cause)
			}
		}
	}
	if n := ruleLookups(e.sim.CloudStack, own.EntityUUID) + ruleLookups(e.sim.CloudStack, forged.EntityUUID); n != 0 {
		t.Errorf("%d listEvents calls by the deleted rules' uuids, which CloudStack refuses", n)
	}
	byID := 0
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listEvents" && (c.Params.Get("id") == own.UUID || c.Params.Get("id") == forged.UUID) {
			byID++
		}
	}
	if byID != 2 {
		t.Errorf("%d listEvents calls by the delivered events' ids, want 2", byID)
	}
}

// TestRuleDeletionFoundBySweep: a rule deleted without a delivery is found by the sweep without
// a cause: no event names the deleted rule any more, and its uuid is never asked for (CloudStack
// would refuse it and end the cycle's other look-ups), so the cause of a VM expunged in the same
// cycle is still found.
func TestRuleDeletionFoundBySweep(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Account: "acme", NetworkRules: true, Workers: 2})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.baseline(nil)
	gone := e.deleteSSHRule(cs[0], cs[0].VMs[1], "", "bob")
	var destroy *cloudstacktest.Event
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		vm := w.VMByName(cs[0].VMs[2])
		vm.State = "Destroyed"
		destroy = w.AddEvent(cloudstacktest.Event{Type: "VM.DESTROY", State: "Completed", Description: "Destroying Vm. Vm Id: " + vm.ID,
			ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: time.Now().Add(-time.Minute)}.Of(w.ClusterByName("test")))
	})
	e.checkNow(2)
	r, _ := e.findingsReport()
	var rule, expunged bool
	for _, f := range r.Clusters[0].Findings {
		switch f.Kind {
		case "network_rule_missing":
			rule = f.Cause.IsZero()
		case "mapped_vm_expunged":
			expunged = f.Cause.EventID == destroy.ID
		}
	}
	if !rule || !expunged {
		t.Errorf("findings %+v: want network_rule_missing without a cause and mapped_vm_expunged with %s", r.Clusters[0].Findings, destroy.ID)
	}
	if n := ruleLookups(e.sim.CloudStack, gone.EntityUUID); n != 0 {
		t.Errorf("%d listEvents calls by the deleted rule's uuid", n)
	}
}
