package exporter

import (
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestShutdownDuringHangingInventory: Run's context is cancelled while listVirtualMachines hangs
// (the answer would take an hour). Run returns without waiting for the answer, the state file is
// consistent and still holds the open finding, and once the simulator is closed no goroutine of
// the exporter is left behind.
func TestShutdownDuringHangingInventory(t *testing.T) {
	// Goroutines that exist before this test belong to earlier tests of the package and to
	// TestMain; they are not this exporter's. Only goroutines started from here on are checked.
	before := goleak.IgnoreCurrent()

	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	e.start()
	e.openVMFinding(cs[0])

	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: time.Hour})
	calls := e.sim.CloudStack.CallCount("listVirtualMachines")
	e.waitFor("listVirtualMachines to hang", func() bool { return e.sim.CloudStack.CallCount("listVirtualMachines") > calls })

	cancelled := time.Now()
	e.cancel()
	select {
	case err := <-e.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second): // a bound, not a timing assertion: the answer is an hour away
		t.Fatal("Run did not return within 20s of its context being cancelled during a hanging API call")
	}
	t.Logf("Run returned %v after the cancellation", time.Since(cancelled).Round(time.Millisecond))
	e.cancel = nil // stopped: the harness's cleanup has nothing left to wait for
	if err := e.exp.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	if a := onlyAnnouncement(t, checkStateFile(t, e.statePath())); !a.announced() {
		t.Fatalf("the state file lost the announcement: %+v", a)
	}

	e.sim.Close()
	// The test's own scrapes of /metrics kept idle keep-alive connections in the default
	// transport; they are the test's, not the exporter's.
	http.DefaultClient.CloseIdleConnections()
	// No IgnoreTopFunction is needed: the exporter's HTTP client connections to CloudStack end
	// when the simulator closes them, the SSH sessions end with each cycle, and goleak's own
	// defaults already skip the os/signal goroutine that signal.Notify (SIGHUP) starts once per
	// process. VerifyNone retries while those connections wind down.
	goleak.VerifyNone(t, before)
}
