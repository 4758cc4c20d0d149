package exporter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestTenantFloodKeepsOthersShare: a tenant scales its four clusters up and down in a loop, as
// fast as CloudStack delivers the events (each scale's KUBERNETES.CLUSTER.SCALE and the VM.CREATE
// and VM.DESTROY of its workers), and spends its share of events.max_rechecks_per_minute (8: half
// while it is alone); the rest of its events are over_budget. Meanwhile a worker of another
// tenant's cluster leaves the map: that tenant's one event re-checks its cluster at once, from the
// share kept for a tenant that has not asked, and the finding is on /metrics and announced once
// without a cycle. Before the share was kept, the flood took the whole budget and the victim's
// event waited for the next cycle.
func TestTenantFloodKeepsOthersShare(t *testing.T) {
	specs := []simulator.ClusterSpec{{Name: "alpha", Account: "acme"}}
	for i := range 4 {
		specs = append(specs, simulator.ClusterSpec{Name: fmt.Sprintf("mal%d", i), Account: "mallory"})
	}
	e, cs := startWithEvents(t, specs...)
	e.editConfig("  recheck_delay: 0s\n", "  recheck_delay: 0s\n  max_rechecks_per_minute: 8\n")
	e.postReload()
	alpha, flooder := cs[0], cs[1:]

	var flood []cloudstacktest.ActionEvent
	for _, c := range flooder {
		scale := e.vmEvent("KUBERNETES.CLUSTER.SCALE", c.VMs[0])
		scale.Entity, scale.EntityUUID, scale.Resources = "KubernetesCluster", c.ID, map[string]string{"KubernetesCluster": c.ID}
		flood = append(flood, scale, e.vmEvent("VM.CREATE", c.VMs[1]), e.vmEvent("VM.DESTROY", c.VMs[2]))
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		hook := e.hook()
		for i := 0; ctx.Err() == nil; i++ {
			ev := flood[i%len(flood)]
			ev.UUID = newUUID() // each try of the loop is a new event
			hook.Deliver(ctx, ev)
		}
	}()
	t.Cleanup(func() { stop(); wg.Wait() })
	e.waitFor("the flood past its share", func() bool { return e.eventCounts()["over_budget"] >= 20 })

	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	if d := e.hook().Deliver(context.Background(), e.vmEvent("VM.STOP", alpha.VMs[2])); !d.Success {
		t.Fatalf("the victim's delivery answered %v", d.Statuses)
	}
	want := "alpha unmapped_vm " + alpha.VMs[2]
	e.waitFor("the victim's finding", func() bool { return slices.Contains(e.findings(), want) })
	stop()
	wg.Wait()

	m := e.metrics()
	if c := m["cks_drift_cycles_total"]; c != 1 {
		t.Errorf("%v cycles, want the first only: the finding came from the victim's re-check", c)
	}
	if r := m["cks_drift_rechecks_total"]; r < 2 || r > 5 {
		t.Errorf("%v clusters re-checked, want the flood's share of 4 and the victim's one at most", r)
	}
	var announced int
	for _, w := range e.writes() {
		if strings.Contains(w, alpha.VMs[2]) && strings.HasPrefix(w, "addAnnotation [WARN]") {
			announced++
		}
	}
	if announced != 1 {
		t.Errorf("the victim's finding was annotated %d times, want once: %q", announced, e.writes())
	}
	t.Logf("events %v, clusters re-checked %v", e.eventCounts(), m["cks_drift_rechecks_total"])
}
