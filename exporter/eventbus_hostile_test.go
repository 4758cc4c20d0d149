package exporter

import (
	"bytes"
	"log/slog"
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// TestEventBusHostileMessages: on Debian's RabbitMQ, messages on CloudStack's exchange that are
// no action event are counted and dropped without a re-check, and the consumer stays: one over
// 1 MiB (rejected before it is parsed), one that is not JSON and one with no event type
// (ignored), one whose ids are no uuids (an event tied to nothing: ignored); the next real
// event re-checks its cluster.
func TestEventBusHostileMessages(t *testing.T) {
	broker, e, alpha, mark := startWithBus(t)

	key := "management-server.ActionEvent.VM-STOP.VirtualMachine."
	vm := e.vmEvent("VM.STOP", alpha.VMs[2])
	huge := vm
	huge.Description = string(bytes.Repeat([]byte("x"), 2<<20))
	noIDs := vm
	noIDs.EntityUUID, noIDs.Resources = "../../etc/passwd", map[string]string{"VirtualMachine": "not-a-uuid"}
	for _, m := range []struct {
		key  string
		body []byte
	}{
		{key + vm.EntityUUID, huge.Payload()},
		{key + vm.EntityUUID, []byte("\x00\xffnot json")},
		{key + vm.EntityUUID, []byte(`{"status":"Completed","entityuuid":"` + vm.EntityUUID + `"}`)},
		{key + "not-a-uuid", noIDs.Payload()},
	} {
		broker.Publish("cloudstack-events", m.key, m.body)
	}
	counts := func() []float64 {
		m := e.metrics()
		return []float64{m[`cks_drift_events_total{result="rejected",source="amqp"}`], m[`cks_drift_events_total{result="ignored",source="amqp"}`],
			m[`cks_drift_events_total{result="accepted",source="amqp"}`]}
	}
	e.waitFor("the four messages counted", func() bool { return slices.Equal(counts(), []float64{1, 3, 0}) })
	if r := e.metrics()["cks_drift_rechecks_total"]; r != 0 {
		t.Errorf("%v re-checks from messages that are no event of a watched cluster", r)
	}
	if lost := e.logged(mark, slog.LevelWarn, events.MsgBusLost); len(lost) != 0 {
		t.Errorf("the consumer lost the bus over the messages: %v", lost)
	}

	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	vm.UUID = ""
	broker.Publish("cloudstack-events", key+vm.EntityUUID, vm.Payload())
	want := "alpha unmapped_vm " + alpha.VMs[2]
	e.waitFor("the real event's re-check", func() bool { return slices.Contains(e.findings(), want) })
}
