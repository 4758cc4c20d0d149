package exporter

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestDefaultsReachTheAdapters: a configuration that names no page size and no alert types runs
// with the documented defaults (cloudstack.page_size 500, notifier.alert_type_min/max 20000 and
// 29999) all the way to the requests CloudStack receives, whichever package builds them.
func TestDefaultsReachTheAdapters(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 100ms\n", "")
	for _, key := range []string{"page_size", "alert_type"} {
		if strings.Contains(e.config(), key) {
			t.Fatalf("the configuration names %s; the test needs it left to its default", key)
		}
	}
	e.start()
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the alert", func() bool { return len(e.storedAlerts()) == 1 })
	e.nextCycles(1)

	paged := map[string]bool{}
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listEvents" {
			continue // a search for the newest events of a resource, in pages of its own (api.eventPageSize)
		}
		if c.Params.Has("page") || c.Params.Has("pagesize") {
			paged[c.Command] = true
			if got := c.Params.Get("pagesize"); got != "500" {
				t.Errorf("%s asked for pagesize %q, want the default 500", c.Command, got)
			}
		}
		if c.Command == "generateAlert" {
			typ, err := strconv.Atoi(c.Params.Get("type"))
			if err != nil || typ < 20000 || typ > 29999 {
				t.Errorf("generateAlert of type %q, want one in the default range 20000-29999", c.Params.Get("type"))
			}
		}
	}
	for _, cmd := range []string{"listKubernetesClusters", "listVirtualMachines"} {
		if !paged[cmd] {
			t.Errorf("no paged %s call seen; paged: %v", cmd, paged)
		}
	}
}
