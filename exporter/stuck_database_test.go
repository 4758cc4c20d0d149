package exporter

import (
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestStuckInOperationFromTheDatabase is TestStuckInOperation with inventory.source database: a
// cluster whose row says Scaling, with the scale's event two hours old in the event table, is
// stuck_in_operation since then, announced once, not again after a restart, and resolved with
// the [INFO] annotation when its row says Running again.
func TestStuckInOperationFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 1})
	test := cs[0]
	since := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	if err := e.sim.StartOperation(test.ID, "Scaling", since); err != nil {
		t.Fatal(err)
	}
	d, _, _ := e.startOnDatabase(db, "  interval: 100ms\n  stuck_after: 1h\n")
	stuck := "test stuck_in_operation "
	e.waitFor("stuck_in_operation", func() bool { return slices.Equal(e.findings(), []string{stuck}) })
	e.nextCycles(3)
	message := "Kubernetes cluster test has been in state Scaling since " + since.Format(time.RFC3339) + ", longer than 1h"
	if w := e.writes(); len(w) != 2 || count(w, "addAnnotation "+notifier.WarnAnnotation(message)) != 1 || count(w, "generateAlert "+message+".") != 1 {
		t.Fatalf("writes: %q", w)
	}
	checkSince(t, e, test.ID, "test", since, true)

	e.stop()
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Events = nil }) // purged: the state file keeps the time
	e.reload(d)
	written := len(e.writes())
	e.start()
	e.nextCycles(3)
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("announced again after a restart: %q", w)
	}
	checkSince(t, e, test.ID, "test", since, true)

	if err := e.sim.SetClusterState(test.ID, "Running"); err != nil {
		t.Fatal(err)
	}
	e.reload(d)
	e.waitFor("the finding to go", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	if info := "addAnnotation " + notifier.InfoAnnotation(notifier.StuckResolution("test", "Scaling")); count(e.writes()[written:], info) != 1 {
		t.Fatalf("writes once Running: %q, want %q", e.writes()[written:], info)
	}
}
