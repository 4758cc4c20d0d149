package exporter

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/rabbitmqtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestEventBusRechecksAndSurvivesTheBroker: against Debian's RabbitMQ, an event CloudStack
// publishes to its exchange with its routing key re-checks the cluster it names; an event of a
// type the exporter does not bind never reaches it. The broker going away is logged once, the
// consumer comes back with it, and the next event re-checks again.
func TestEventBusRechecksAndSurvivesTheBroker(t *testing.T) {
	broker, e, alpha, mark := startWithBus(t)

	publish := func(eventType, vm string) {
		ev := e.vmEvent(eventType, vm)
		ev.UUID = "" // the bus carries no event id
		broker.Publish("cloudstack-events", "management-server.ActionEvent."+strings.ReplaceAll(eventType, ".", "-")+".VirtualMachine."+ev.EntityUUID, ev.Payload())
	}
	// Not bound: the broker drops it, the exporter never counts it.
	publish("VM.SNAPSHOT.CREATE", alpha.VMs[1])
	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	publish("VM.STOP", alpha.VMs[2])
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	if got, want := e.findings(), []string{"alpha unmapped_vm " + alpha.VMs[2]}; !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	m := e.metrics()
	if m[`cks_drift_events_total{result="accepted",source="amqp"}`] != 1 || m[`cks_drift_events_total{result="ignored",source="amqp"}`] != 0 {
		t.Errorf("amqp events %v, want the one bound event accepted", matching(m, `source="amqp"`))
	}

	mark = e.logs.mark()
	broker.Stop()
	e.waitFor("the loss logged", func() bool { return len(e.logged(mark, slog.LevelWarn, events.MsgBusLost)) > 0 })
	broker.Restart()
	e.waitFor("the consumer back", func() bool { return len(e.logged(mark, slog.LevelInfo, events.MsgBusAgain)) > 0 })
	if n := len(e.logs.since(mark, slog.LevelWarn)); n != 1 {
		t.Errorf("%d WARN lines while the broker was away, want the one", n)
	}
	publish("VM.START", alpha.VMs[1])
	e.waitFor("the second re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 2 })
}

// startWithBus starts Debian's RabbitMQ and an exporter over one cluster, alpha of account acme,
// that sweeps once an hour and consumes CloudStack's event bus there, re-checking at once; it
// waits for the first cycle and the consumer, and returns the log mark before the start.
func startWithBus(t *testing.T) (*rabbitmqtest.Broker, *env, simulator.Cluster, int) {
	t.Helper()
	broker := rabbitmqtest.Start(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha", Account: "acme"})
	e.writeConfig("  interval: 1h\n", "")
	e.setConfig(e.config() + "events:\n  amqp:\n    url: " + broker.Addr() + "\n    username: " + rabbitmqtest.User +
		"\n    password: " + rabbitmqtest.Password + "\n  recheck_delay: 0s\n")
	e.prepare = func(x *Exporter) { x.busBackoff = 500 * time.Millisecond } // the broker comes back within the test's wait
	mark := e.logs.mark()
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	e.waitFor("the consumer", func() bool { return len(e.logged(mark, slog.LevelInfo, events.MsgBusConsuming)) > 0 })
	return broker, e, cs[0], mark
}
