package exporter

import (
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestSlowRequestsLogged: CloudStack stalls for less than cloudstack.timeout (30 s, so slow past
// 5 s) on both VM listings of a cycle (the accounts' and the projects'): the cycle succeeds, and
// logs one WARN naming how many requests were slow and the slowest; the requests' durations are
// in the histogram.
func TestSlowRequestsLogged(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: 5500 * time.Millisecond, Times: 2})
	mark := e.logs.mark()
	e.checkNow(1)
	var slow []logLine
	for _, l := range e.logs.since(mark, slog.LevelWarn) {
		if l.Msg == msgSlowRequests {
			slow = append(slow, l)
		}
	}
	if len(slow) != 1 || atoi(t, slow[0].Attrs["slow_requests"]) < 2 || slow[0].Attrs["threshold"] != "5s" {
		t.Fatalf("slow-request lines of the cycle: %+v, want one counting both VM listings (at least) past 5s", slow)
	}
	if m := e.metrics(); m[`cks_drift_up`] != 1 || m[`cks_drift_cloudstack_request_duration_seconds_bucket{command="listVirtualMachines",le="5"}`] >= m[`cks_drift_cloudstack_request_duration_seconds_count{command="listVirtualMachines"}`] {
		t.Fatalf("the cycle failed, or the histogram does not show the slow VM listings: %v", matching(m, `listVirtualMachines|cks_drift_up`))
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
