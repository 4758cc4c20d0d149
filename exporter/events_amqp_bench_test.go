package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/rabbitmqtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// amqpBenchClusters is the number of watched clusters of TestAMQPLatency, each of its own
// change.
const amqpBenchClusters = 40

// TestAMQPLatency (opt-in: CKS_DRIFT_EVENTS_BENCH=1) measures CloudStack's RabbitMQ event bus
// end to end, against Debian's RabbitMQ: the events are published as RabbitMQEventBus publishes
// them (one connection and channel kept open, CloudStack's durable topic exchange, the routing
// key management-server.ActionEvent.<TYPE>.<resource type>.<uuid>, persistent text/plain
// messages), to an exporter over amqpBenchClusters clusters that sweeps once an hour:
//   - 1,000 events about VMs of the clusters (VM.REBOOT), 100 a second: the exporter's own
//     cks_drift_event_to_publish_seconds, from a message's arrival to its re-check's snapshot
//     (its mean and buckets, the first of which is 0.5 s);
//   - then one change per cluster (a mapped worker Destroyed, every 250 ms), each followed by its
//     VM.DESTROY on the bus: the time from the publication of the event to the published snapshot
//     (what /metrics serves) holding its mapped_vm_expunged, watched every 5 ms.
//
// docs/benchmarks.md has the figures. It asserts only that every change is found.
func TestAMQPLatency(t *testing.T) {
	if os.Getenv("CKS_DRIFT_EVENTS_BENCH") != "1" {
		t.Skip("opt-in: Debian's RabbitMQ and 15 s of events; set CKS_DRIFT_EVENTS_BENCH=1")
	}
	broker := rabbitmqtest.Start(t)
	var specs []simulator.ClusterSpec
	for i := range amqpBenchClusters {
		specs = append(specs, simulator.ClusterSpec{Name: fmt.Sprintf("c%02d", i), Account: fmt.Sprintf("t%d", i%8)})
	}
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "")
	e.setConfig(e.config() + "events:\n  amqp:\n    url: " + broker.Addr() + "\n    username: " + rabbitmqtest.User +
		"\n    password: " + rabbitmqtest.Password + "\n  recheck_delay: 0s\n  max_rechecks_per_minute: 100000\n")
	mark := e.logs.mark()
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	e.waitFor("the consumer", func() bool { return len(e.logged(mark, slog.LevelInfo, events.MsgBusConsuming)) > 0 })
	bus := dialBus(t, broker)
	t.Logf("%d clusters; load: %s", len(cs), loadAverage())

	// Phase 1: 1,000 events at 100 a second.
	tick := time.NewTicker(10 * time.Millisecond)
	for i := range 1000 {
		<-tick.C
		c := cs[i%len(cs)]
		bus.publish(t, e.vmEvent("VM.REBOOT", c.VMs[i%len(c.VMs)]))
	}
	tick.Stop()
	e.waitFor("the events counted", func() bool {
		return e.metrics()[`cks_drift_events_total{result="accepted",source="amqp"}`] == 1000
	})
	e.waitFor("their re-checks published", func() bool { return e.metrics()["cks_drift_event_to_publish_seconds_count"] >= 1 })
	m := e.metrics()
	t.Logf("1,000 events at 100/s: re-checks %v; message to publication: count %v, mean %.3f s, <=0.5s %v, <=1s %v, <=2s %v, <=5s %v",
		m["cks_drift_rechecks_total"], m["cks_drift_event_to_publish_seconds_count"],
		m["cks_drift_event_to_publish_seconds_sum"]/max(m["cks_drift_event_to_publish_seconds_count"], 1),
		m[`cks_drift_event_to_publish_seconds_bucket{le="0.5"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="1"}`],
		m[`cks_drift_event_to_publish_seconds_bucket{le="2"}`], m[`cks_drift_event_to_publish_seconds_bucket{le="5"}`])

	// Phase 2: one change per cluster, each followed by its event on the bus.
	type change struct {
		clusterID, vmName, vmID string
		published, found        time.Time
	}
	var changes []*change
	for _, c := range cs {
		changes = append(changes, &change{clusterID: c.ID, vmName: c.VMs[1]})
	}
	var mu sync.Mutex
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			now, snap := time.Now(), e.exp.lastSnapshot()
			mu.Lock()
			done := true
			for _, c := range changes {
				if !c.published.IsZero() && c.found.IsZero() && hasFinding(statusOf(snap, c.clusterID), c.vmID) {
					c.found = now
				}
				done = done && !c.found.IsZero()
			}
			mu.Unlock()
			if done {
				return
			}
		}
	}()
	for k, c := range changes {
		if k > 0 {
			time.Sleep(250 * time.Millisecond) // the changes' pace, not a wait for a condition
		}
		e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
			vm := w.VMByName(c.vmName)
			vm.State = "Destroyed"
			c.vmID = vm.ID
		})
		ev := e.vmEvent("VM.DESTROY", c.vmName)
		mu.Lock()
		c.published = time.Now()
		mu.Unlock()
		bus.publish(t, ev)
	}
	<-watched
	mu.Lock()
	defer mu.Unlock()
	var times []time.Duration
	for _, c := range changes {
		if c.found.IsZero() {
			t.Fatalf("the change of cluster %s was not found within 5 minutes", c.clusterID)
		}
		times = append(times, c.found.Sub(c.published))
	}
	slices.Sort(times)
	t.Logf("event published on the bus to the snapshot /metrics serves: %s; load: %s", percentiles(times), loadAverage())
}

// busPublisher publishes as CloudStack's RabbitMQEventBus does: over one connection and channel
// it keeps, to its durable topic exchange, persistent text/plain messages (4.20.0.0).
type busPublisher struct {
	ch *amqp.Channel
}

func dialBus(t *testing.T, b *rabbitmqtest.Broker) busPublisher {
	t.Helper()
	conn, err := amqp.Dial(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare("cloudstack-events", amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	return busPublisher{ch: ch}
}

// publish sends ev without its id (the bus carries none), keyed by its type and entity.
func (p busPublisher) publish(t *testing.T, ev cloudstacktest.ActionEvent) {
	t.Helper()
	ev.UUID = ""
	err := p.ch.PublishWithContext(context.Background(), "cloudstack-events", events.RoutingKey(ev.Type, ev.Entity, ev.EntityUUID), false, false,
		amqp.Publishing{ContentType: "text/plain", DeliveryMode: amqp.Persistent, Body: ev.Payload()})
	if err != nil {
		t.Fatal(err)
	}
}
