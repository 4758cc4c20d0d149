package exporter

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// hangingWorld is a simulated cloud with a noisy tenant whose eight control nodes (clusters "0"
// to "7", created first, sorting first) accept TCP and never answer, and a victim with one
// cluster, "prod", whose control node answers; the exporter lists two clusters at a time.
func hangingWorld(t *testing.T, timeout string) (e *env, victim *sshtest.Server, noisy []*sshtest.Server) {
	t.Helper()
	var specs []simulator.ClusterSpec
	for i := range 8 {
		specs = append(specs, simulator.ClusterSpec{Name: fmt.Sprint(i), Account: "noisy"})
	}
	specs = append(specs, simulator.ClusterSpec{Name: "prod", Account: "victim"})
	e, cs := newEnv(t, specs...)
	for _, c := range cs[:8] {
		node := e.sim.Node(c.ID)
		node.SetMode(sshtest.HangHandshake)
		noisy = append(noisy, node)
	}
	e.writeConfig("  interval: 1h\n  concurrency: 2\n", "")
	e.editConfig("  timeout: 5s\n", "  timeout: "+timeout+"\n")
	return e, e.sim.Node(cs[8].ID), noisy
}

// awaitCommand waits until the node ran kubectl more than before, or fails the test: the bound
// only ends a test that would otherwise wait for an hour-long ssh.timeout.
func awaitCommand(t *testing.T, node *sshtest.Server, before int, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := node.WaitCommands(ctx, before+1); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestHangingTenantDoesNotDelayTheVictimFirstCycle: in the first cycle, with an ssh.timeout of an
// hour and the noisy tenant's eight silent control nodes ahead of it by name and age, the
// victim's node list is read while every noisy listing still waits, so within one ssh.timeout of
// the cycle's start: the clusters take turns by owner. (In the inventory's order, two workers
// waited on the noisy nodes for four timeouts before the victim's turn.)
func TestHangingTenantDoesNotDelayTheVictimFirstCycle(t *testing.T) {
	e, victim, _ := hangingWorld(t, "1h")
	e.start()
	awaitCommand(t, victim, 0, "the victim's nodes were not listed while the noisy tenant's hung")
	if got := e.cycles(); got != 0 {
		t.Fatalf("%v cycles completed, want the first still waiting on the noisy nodes", got)
	}
}

// TestHangingTenantDoesNotDelayTheVictim: the noisy tenant's eight control nodes timed out in
// the first cycle. In the next, with an ssh.timeout of an hour, they wait in their own lane, each
// tried once, and the victim's node list is read while all of them still wait. (They were listed
// first, holding both workers for four timeouts before the victim's turn.)
func TestHangingTenantDoesNotDelayTheVictim(t *testing.T) {
	e, victim, noisy := hangingWorld(t, "300ms")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	if got := e.metrics()[`cks_drift_kubectl_failures_total{reason="timeout"}`]; got < 8 {
		t.Fatalf("%v listings timed out in the first cycle, want the noisy tenant's 8", got)
	}
	e.editConfig("  timeout: 300ms\n", "  timeout: 1h\n")
	e.postReload()
	checkWhileNoisyWait(t, e, victim, noisy, (*sshtest.Server).Connections)
}

// checkWhileNoisyWait asks for the second cycle and expects, while it still waits on the noisy
// nodes, the victim's node list read and every noisy node tried (tried counts what trying it
// does on the node): they wait in a lane of their own, all at once.
func checkWhileNoisyWait(t *testing.T, e *env, victim *sshtest.Server, noisy []*sshtest.Server, tried func(*sshtest.Server) int) {
	t.Helper()
	before := victim.Commands()
	started := make([]int, len(noisy))
	for i, n := range noisy {
		started[i] = tried(n)
	}
	if code := post(t, e.url+"/-/check"); code != http.StatusAccepted {
		t.Fatalf("/-/check: %d", code)
	}
	awaitCommand(t, victim, before, "the victim's nodes were not listed while the noisy tenant's waited")
	e.waitFor("every noisy node tried in its own lane", func() bool {
		for i, n := range noisy {
			if tried(n) <= started[i] {
				return false
			}
		}
		return true
	})
	if got := e.cycles(); got != 1 {
		t.Fatalf("%v cycles completed, want the second still waiting on the noisy nodes", got)
	}
}

// TestSlowTenantWaitsApart: the noisy tenant's eight control nodes answer 5.5 s after their
// command starts, within an ssh.timeout of 10 s but past half of it (slowFraction). In the next
// cycle, with an ssh.timeout of an hour, two workers for the answering lane and the noisy nodes
// now never answering, they wait in the slow lane, all tried at once, and the victim's node list
// is read while every one of them still waits. (A node that answered just before the timeout
// stayed in the answering lane: its two workers waited on two noisy nodes, and the other six were
// not tried.)
func TestSlowTenantWaitsApart(t *testing.T) {
	var specs []simulator.ClusterSpec
	for i := range 8 {
		specs = append(specs, simulator.ClusterSpec{Name: fmt.Sprint(i), Account: "noisy"})
	}
	specs = append(specs, simulator.ClusterSpec{Name: "prod", Account: "victim"})
	e, cs := newEnv(t, specs...)
	var noisy []*sshtest.Server
	for _, c := range cs[:8] {
		node := e.sim.Node(c.ID)
		node.SetCommandDelay(5500 * time.Millisecond)
		noisy = append(noisy, node)
	}
	victim := e.sim.Node(cs[8].ID)
	e.writeConfig("  interval: 1h\n  concurrency: 16\n", "")
	e.editConfig("  timeout: 5s\n", "  timeout: 10s\n")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	for k, v := range matching(e.metrics(), `^cks_drift_kubectl_failures_total`) {
		if v > 0 {
			t.Fatalf("the first cycle failed listings, want every slow node read: %s = %v", k, v)
		}
	}

	for _, n := range noisy {
		n.SetCommandDelay(0)
		n.SetMode(sshtest.HangCommand)
	}
	e.editConfig("  concurrency: 16\n", "  concurrency: 2\n")
	e.editConfig("  timeout: 10s\n", "  timeout: 1h\n")
	e.postReload()
	checkWhileNoisyWait(t, e, victim, noisy, (*sshtest.Server).Commands)
}
