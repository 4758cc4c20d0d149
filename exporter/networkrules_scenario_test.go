package exporter

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestNetworkRuleMissingThroughTheAPI: a tenant deletes the SSH port-forwarding rule of a worker
// of its cluster; network_rule_missing appears and is announced once (one [WARN] annotation, one
// alert over three cycles); the rule re-created while listFirewallRules fails, the network side
// is not compared: the finding is kept and nothing is announced, though the inventory is read;
// the rules read again, one [INFO] with the network side's message and the alert archived.
func TestNetworkRuleMissingThroughTheAPI(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2, NetworkRules: true})
	c := cs[0]
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.checkNow(1)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %q", f)
	}

	restore, err := e.sim.RemoveSSHRule(c.ID, c.VMs[2])
	if err != nil {
		t.Fatal(err)
	}
	e.checkNow(3)
	want := []string{"test network_rule_missing " + c.VMs[2]}
	if f := e.findings(); !slices.Equal(f, want) {
		t.Fatalf("findings: %q, want %q", f, want)
	}
	msg := "The port-forwarding rule of VM " + c.VMs[2]
	written := e.writes()
	if count(written, "addAnnotation [WARN] "+msg, "CKS's upgrade reaches the node through it") != 1 ||
		count(written, "generateAlert "+msg, "This is only reported, nothing was changed.") != 1 || len(written) != 2 {
		t.Fatalf("writes: %q, want one [WARN] annotation and one alert with %q", written, msg)
	}

	e.sim.CloudStack.SetFault("listFirewallRules", cloudstacktest.Fault{Status: 530})
	restore()
	e.checkNow(2)
	if m := e.metrics(); m["cks_drift_up"] != 1 {
		t.Fatalf("cks_drift_up %v: the inventory is read while the rules are not", m["cks_drift_up"])
	}
	if f := e.findings(); !slices.Equal(f, want) {
		t.Fatalf("findings while the rules cannot be read: %q, want them kept: %q", f, want)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		t.Fatalf("announced while the rules could not be read: %q", w[len(written):])
	}

	e.sim.CloudStack.ClearFaults()
	e.checkNow(2)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings once re-created and read again: %q", f)
	}
	after := e.writes()[len(written):]
	if count(after, "addAnnotation [INFO] The network rules of Kubernetes cluster test match what CKS created again") != 1 ||
		count(after, "addAnnotation") != 1 || count(after, "generateAlert") != 0 {
		t.Fatalf("writes once resolved: %q", after)
	}
	e.oneEpisode("The network rules of Kubernetes cluster test match what CKS created again")
}

// TestRuleEventRechecksItsCluster: the event of a tenant deleting a node's SSH rule names the
// rule; it re-checks the rule's cluster at once, which finds network_rule_missing without a cycle,
// and no other cluster.
func TestRuleEventRechecksItsCluster(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme", NetworkRules: true},
		simulator.ClusterSpec{Name: "beta", Account: "globex", NetworkRules: true})
	alpha := cs[0]
	var ruleID string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		vm := w.VMByName(alpha.VMs[2])
		for _, r := range w.PortForwardingRules {
			if r.VirtualMachineID == vm.ID && r.PrivatePort == 22 {
				ruleID = r.ID
			}
		}
	})
	if _, err := e.sim.RemoveSSHRule(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	ev := cloudstacktest.ActionEvent{UUID: newUUID(), Type: "NET.RULEDELETE", Status: "Completed", Entity: "FirewallRule", EntityUUID: ruleID,
		UserUUID: newUUID(), AccountUUID: newUUID(), Description: "Deleting a port forwarding rule", Created: time.Now(),
		Resources: map[string]string{"FirewallRule": ruleID}}
	if d := e.hook().Deliver(context.Background(), ev); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	if got, want := e.findings(), []string{"alpha network_rule_missing " + alpha.VMs[2]}; !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	if c := e.cycles(); c != 1 {
		t.Errorf("%v cycles, want the first only", c)
	}
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listVirtualMachines" && c.Params.Get("account") == "globex" {
			t.Error("the re-check read the VMs of another tenant")
		}
	}
}
