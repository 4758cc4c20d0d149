package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestNetworkRuleMissingThroughTheAPI: the rules cannot be read while listFirewallRules fails;
// the inventory is read.
func TestNetworkRuleMissingThroughTheAPI(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2, NetworkRules: true})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.ruleEpisode(cs[0], nil,
		func() { e.sim.CloudStack.SetFault("listFirewallRules", cloudstacktest.Fault{Status: 530}) },
		func() { e.sim.CloudStack.ClearFaults() })
}

// TestNetworkRuleMissingFromTheDatabase: the rules cannot be read while the exporter's account
// has no SELECT on load_balancer_vm_map, as an account granted before the database source read
// the network side; the other tables are read.
func TestNetworkRuleMissingFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2, NetworkRules: true})
	d, _, _ := e.startOnDatabase(db, "  interval: 1h\n")
	grant := func(stmt string) func() {
		return func() {
			if _, err := d.Admin.Exec(fmt.Sprintf(stmt, d.Name, d.Name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.ruleEpisode(cs[0], func() { e.reload(d) },
		grant("REVOKE SELECT ON %s.load_balancer_vm_map FROM '%s'@'%%'"),
		grant("GRANT SELECT ON %s.load_balancer_vm_map TO '%s'@'%%'"))
}

// ruleEpisode walks network_rule_missing through its episode on a started exporter whose cycles
// run only when asked for: a tenant deletes the SSH port-forwarding rule of a worker of its
// cluster; the finding appears and is announced once (one [WARN] annotation, one alert over
// three cycles); the rule re-created while hide makes the rules unreadable, the network side is
// not compared: the finding is kept and nothing is announced, though the inventory is read; show
// makes them readable again: one [INFO] with the network side's message and the alert archived.
// Meanwhile cks_drift_sides_not_compared{side="network"} counts the cluster, and the log says so
// once (a WARN when it starts, an INFO when the side is compared again). load, when not nil,
// hands the cloud's model to the inventory source.
func (e *env) ruleEpisode(c simulator.Cluster, load, hide, show func()) {
	e.t.Helper()
	loaded := e.baseline(load)

	restore, err := e.sim.RemoveSSHRule(c.ID, c.VMs[2])
	if err != nil {
		e.t.Fatal(err)
	}
	loaded()
	e.checkNow(3)
	want := []string{"test network_rule_missing " + c.VMs[2]}
	if f := e.findings(); !slices.Equal(f, want) {
		e.t.Fatalf("findings: %q, want %q", f, want)
	}
	msg := "The port-forwarding rule of VM " + c.VMs[2]
	written := e.writes()
	if count(written, "addAnnotation [WARN] "+msg, "CKS's upgrade reaches the node through it") != 1 ||
		count(written, "generateAlert "+msg, "This is only reported, nothing was changed.") != 1 || len(written) != 2 {
		e.t.Fatalf("writes: %q, want one [WARN] annotation and one alert with %q", written, msg)
	}

	const notCompared = `cks_drift_sides_not_compared{side="network"}`
	if m := e.metrics(); m[notCompared] != 0 {
		e.t.Fatalf("%s %v while the rules are read", notCompared, m[notCompared])
	}
	mark := e.logs.mark()
	hide()
	restore()
	loaded()
	e.checkNow(2)
	if m := e.metrics(); m["cks_drift_up"] != 1 || m[notCompared] != 1 {
		e.t.Fatalf("cks_drift_up %v, %s %v: the inventory is read while the rules are not, and the side counted as not compared",
			m["cks_drift_up"], notCompared, m[notCompared])
	}
	const gap = "Could not compare a side of some clusters; their findings of it are kept as they were until it can be read"
	if l := e.logged(mark, slog.LevelWarn, gap); len(l) != 1 || l[0].Attrs["side"] != "network" || l[0].Attrs["clusters"] != "1" ||
		l[0].Attrs["cluster"] != "test" || l[0].Attrs["reasons"] == "" {
		e.t.Fatalf("WARN lines of the side not compared over two cycles: %v, want one naming the network side, the cluster and why", l)
	}
	mark = e.logs.mark()
	e.keptThenResolved(want, written, show, "The network rules of Kubernetes cluster test match what CKS created again")
	if m := e.metrics(); m[notCompared] != 0 {
		e.t.Fatalf("%s %v once the rules are read again", notCompared, m[notCompared])
	}
	if l := e.logged(mark, slog.LevelInfo, "The side is compared again for every cluster"); len(l) != 1 || l[0].Attrs["side"] != "network" {
		e.t.Fatalf("INFO lines of the side compared again: %v, want one for the network side", l)
	}
}

// TestRuleEventRechecksItsCluster: the event of a tenant deleting a node's SSH rule names the
// rule; it re-checks the rule's cluster at once, which finds network_rule_missing without a cycle,
// and no other cluster.
func TestRuleEventRechecksItsCluster(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme", NetworkRules: true},
		simulator.ClusterSpec{Name: "beta", Account: "globex", NetworkRules: true})
	alpha := cs[0]
	e.deleteSSHRuleWithEvent(alpha, alpha.VMs[2], nil)
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

// TestRuleEventFromTheDatabase: with the database source, which reads no single cluster, the
// event of a tenant deleting a node's SSH rule names a rule the last cycle read from
// firewall_rules (by its uuid), and starts a whole cycle at once, which finds the rule gone.
func TestRuleEventFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha", Account: "acme", NetworkRules: true},
		simulator.ClusterSpec{Name: "beta", Account: "globex", NetworkRules: true})
	var d *mariadbtest.Database
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) { d = db.NewDatabaseOf(t, w) })
	dsn, _, _ := exporterAccount(t, d)
	t.Setenv("CKS_DRIFT_E2E_DSN", dsn)
	e.writeConfig("  interval: 1h\n", "")
	e.setConfig(e.config() + eventsSection + "inventory:\n  source: database\ndatabase:\n  dsn: ${CKS_DRIFT_E2E_DSN}\n  query_timeout: 5s\n")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %q", f)
	}

	alpha := cs[0]
	e.deleteSSHRuleWithEvent(alpha, alpha.VMs[2], func() { e.reload(d) })
	want := []string{"alpha network_rule_missing " + alpha.VMs[2]}
	e.waitFor("the cycle the event started", func() bool { return slices.Equal(e.findings(), want) })
	if c := e.cycles(); c != 2 {
		t.Errorf("%v cycles, want the first and the one the event started", c)
	}
}

// deleteSSHRuleWithEvent deletes the SSH port-forwarding rule of the cluster's VM, as its
// tenant may, hands the cloud to the inventory source with load (when not nil), and delivers
// the deletion's event, NET.RULEDELETE with the rule as its resource, to the exporter's webhook.
func (e *env) deleteSSHRuleWithEvent(c simulator.Cluster, vmName string, load func()) {
	e.t.Helper()
	var ruleID string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		vm := w.VMByName(vmName)
		for _, r := range w.PortForwardingRules {
			if r.VirtualMachineID == vm.ID && r.PrivatePort == 22 {
				ruleID = r.ID
			}
		}
	})
	if _, err := e.sim.RemoveSSHRule(c.ID, vmName); err != nil {
		e.t.Fatal(err)
	}
	if load != nil {
		load()
	}
	ev := cloudstacktest.ActionEvent{UUID: newUUID(), Type: "NET.RULEDELETE", Status: "Completed", Entity: "FirewallRule", EntityUUID: ruleID,
		UserUUID: newUUID(), AccountUUID: newUUID(), Description: "Deleting a port forwarding rule", Created: time.Now(),
		Resources: map[string]string{"FirewallRule": ruleID}}
	if d := e.hook().Deliver(context.Background(), ev); !d.Success {
		e.t.Fatalf("delivery answered %v", d.Statuses)
	}
}
