package exporter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// hookSecret is the secret key of the tests' CloudStack webhook.
const hookSecret = "Heron-Hook-Secret-4471"

// eventsSection switches CloudStack's webhook on, re-checking at once.
const eventsSection = "events:\n  webhook:\n    enabled: true\n    secret_key: " + hookSecret + "\n  recheck_delay: 0s\n"

// startWithEvents starts an exporter over clusters that sweeps once an hour and hears CloudStack's
// webhook, and waits for its first cycle.
func startWithEvents(t *testing.T, specs ...simulator.ClusterSpec) (*env, []simulator.Cluster) {
	t.Helper()
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "")
	e.setConfig(e.config() + eventsSection)
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	return e, cs
}

// hook is CloudStack's webhook pointed at the exporter.
func (e *env) hook() cloudstacktest.Webhook {
	return cloudstacktest.Webhook{PayloadURL: e.url + "/cloudstack/events", SecretKey: hookSecret}
}

// vmEvent is the action event of a command on the VM called name, by its owner.
func (e *env) vmEvent(eventType, name string) cloudstacktest.ActionEvent {
	e.t.Helper()
	var id string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		if vm := w.VMByName(name); vm != nil {
			id = vm.ID
		}
	})
	if id == "" {
		e.t.Fatalf("no VM %s", name)
	}
	return cloudstacktest.ActionEvent{UUID: newUUID(), Type: eventType, Status: "Completed", Entity: "VirtualMachine", EntityUUID: id,
		UserUUID: newUUID(), AccountUUID: newUUID(), Description: "Expunging Vm. Vm Id: " + id, Created: time.Now(),
		Resources: map[string]string{"VirtualMachine": id}}
}

var uuids atomic.Int64

// newUUID returns a uuid not used before in this test binary.
func newUUID() string {
	return fmt.Sprintf("0e0d7a3c-5f1b-4c2d-9e8f-%012x", uuids.Add(1))
}

// eventCounts returns cks_drift_events_total of the webhook by result.
func (e *env) eventCounts() map[string]float64 {
	out := make(map[string]float64)
	for _, r := range events.Results {
		out[string(r)] = e.metrics()[`cks_drift_events_total{result="`+string(r)+`",source="webhook"}`]
	}
	return out
}

// TestCloudStackWebhookAnswers: a delivery signed with the secret is answered 200, also when it
// concerns nothing the exporter watches; a missing or wrong signature 401 and a body over 1 MiB
// 413, with nothing done; a delivery made again (CloudStack's next try, a replay) 200 and not
// used again. Each is counted by result.
func TestCloudStackWebhookAnswers(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	ctx := context.Background()
	ev := e.vmEvent("VM.REBOOT", cs[0].VMs[1])
	wrong := e.hook()
	wrong.SecretKey = "not-" + hookSecret
	unsigned := e.hook()
	unsigned.SecretKey = ""
	unknown := ev
	unknown.UUID, unknown.EntityUUID, unknown.Resources = newUUID(), newUUID(), nil
	huge := ev
	huge.UUID, huge.Description = newUUID(), strings.Repeat("x", 1<<20)
	tampered := ev.Payload()
	tampered = []byte(strings.Replace(string(tampered), "VM.REBOOT", "VM.EXPUNGE", 1))
	tests := []struct {
		name string
		send func() cloudstacktest.Delivery
		want []int
	}{
		{"no signature", func() cloudstacktest.Delivery { return unsigned.Deliver(ctx, ev) }, []int{401, 401, 401}},
		{"another secret", func() cloudstacktest.Delivery { return wrong.Deliver(ctx, ev) }, []int{401, 401, 401}},
		{"a body changed after signing", func() cloudstacktest.Delivery { return deliverRaw(t, e.hook(), ev.Payload(), tampered, false) }, []int{401}},
		// Refused by the server's limit of every POST before any handler reads it.
		{"over 1 MiB", func() cloudstacktest.Delivery { return e.hook().Deliver(ctx, huge) }, []int{413, 413, 413}},
		{"over 1 MiB, without a length", func() cloudstacktest.Delivery { return deliverRaw(t, e.hook(), huge.Payload(), huge.Payload(), true) }, []int{413}},
		{"signed", func() cloudstacktest.Delivery { return e.hook().Deliver(ctx, ev) }, []int{200}},
		{"the same event again", func() cloudstacktest.Delivery { return e.hook().Deliver(ctx, ev) }, []int{200}},
		{"an event of nothing watched", func() cloudstacktest.Delivery { return e.hook().Deliver(ctx, unknown) }, []int{200}},
		{"executeWebhookDelivery's test payload", func() cloudstacktest.Delivery {
			return e.hook().DeliverPayload(ctx, cloudstacktest.ActionEvent{UUID: newUUID(), Type: "TEST.WEBHOOK"}, []byte(`{ "CloudStack": "works!" }`))
		}, []int{200}},
	}
	for _, tt := range tests {
		if got := tt.send(); !slices.Equal(got.Statuses, tt.want) {
			t.Errorf("%s: answered %v, want %v", tt.name, got.Statuses, tt.want)
		}
	}
	want := map[string]float64{"rejected": 8, "duplicate": 1, "accepted": 1, "ignored": 2, "over_budget": 0}
	e.waitFor("every event counted", func() bool { return fmt.Sprint(e.eventCounts()) == fmt.Sprint(want) })

	e.editConfig("    enabled: true\n", "    enabled: false\n")
	e.postReload()
	if got := e.hook().Deliver(ctx, ev); got.Statuses[0] != http.StatusNotFound {
		t.Errorf("with the webhook off: answered %v, want 404", got.Statuses)
	}
}

// deliverRaw posts body with a new event id and the signature of signed, as one chunked stream
// (no Content-Length) when chunked: a body changed on the way, or one that declares no length.
func deliverRaw(t *testing.T, h cloudstacktest.Webhook, signed, body []byte, chunked bool) cloudstacktest.Delivery {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	if chunked {
		r = io.MultiReader(r)
	}
	req, err := http.NewRequest(http.MethodPost, h.PayloadURL, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-CS-Event-ID", newUUID())
	req.Header.Set("X-CS-Signature", events.Sign([]byte(h.SecretKey), signed))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return cloudstacktest.Delivery{Statuses: []int{resp.StatusCode}}
}

// requests returns cks_drift_cloudstack_requests_total by command.
func (e *env) requests() map[string]float64 {
	out := make(map[string]float64)
	for k, v := range matching(e.metrics(), `^cks_drift_cloudstack_requests_total\{`) {
		out[strings.TrimSuffix(strings.TrimPrefix(k, `cks_drift_cloudstack_requests_total{command="`), `"}`)] = v
	}
	return out
}

// TestWebhookEventRechecksOneCluster: after a VM of alpha's map leaves the map, CloudStack's event
// about that VM re-checks alpha alone, without a cycle: the finding is on /metrics and announced
// as a cycle announces it, reading only alpha's cluster, its owner's VMs and its rules. beta,
// another tenant's cluster, is not read.
func TestWebhookEventRechecksOneCluster(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha", Account: "acme"}, simulator.ClusterSpec{Name: "beta", Account: "globex"})
	alpha := cs[0]
	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	before := e.requests()
	ev := e.vmEvent("VM.STOP", alpha.VMs[2])
	if d := e.hook().Deliver(context.Background(), ev); !d.Success {
		t.Fatalf("delivery answered %v", d.Statuses)
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] == 1 })
	if got, want := e.findings(), []string{"alpha unmapped_vm " + alpha.VMs[2]}; !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	if c := e.cycles(); c != 1 {
		t.Errorf("%v cycles, want the first only", c)
	}
	if w := e.writes(); len(w) != 2 || !strings.Contains(w[0], alpha.VMs[2]) {
		t.Errorf("announcements %q, want the finding's annotation and alert", w)
	}
	after := e.requests()
	read := 0.0
	for cmd, n := range after {
		if !strings.HasPrefix(cmd, "list") {
			continue
		}
		read += n - before[cmd]
	}
	if read > 6 {
		t.Errorf("the re-check read %v pages (%v before, %v after), want at most 6", read, before, after)
	}
	var beta bool
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listVirtualMachines" && c.Params.Get("account") == "globex" {
			beta = true
		}
	}
	if beta {
		t.Error("the re-check read the VMs of another tenant")
	}
	if m := e.metrics(); m["cks_drift_event_to_publish_seconds_count"] != 1 {
		t.Errorf("event_to_publish observed %v times, want 1", m["cks_drift_event_to_publish_seconds_count"])
	}
}

// TestEventBeforeTheChangeIsVisible: CloudStack may deliver an event before its API shows the
// change, and deliveries come in no order. A re-check that sees nothing changed reports nothing
// (no false finding, no false "matches again"); the next cycle finds the change.
func TestEventBeforeTheChangeIsVisible(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	alpha := cs[0]
	ctx := context.Background()
	stop, start := e.vmEvent("VM.STOP", alpha.VMs[2]), e.vmEvent("VM.START", alpha.VMs[2])
	for _, ev := range []cloudstacktest.ActionEvent{start, stop} { // the later event first
		if d := e.hook().Deliver(ctx, ev); !d.Success {
			t.Fatalf("delivery answered %v", d.Statuses)
		}
	}
	e.waitFor("the re-check", func() bool { return e.metrics()["cks_drift_rechecks_total"] >= 1 })
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings %v before any change", f)
	}
	if _, err := e.sim.DeleteMapRow(alpha.ID, alpha.VMs[2]); err != nil {
		t.Fatal(err)
	}
	e.checkNow(1)
	if got, want := e.findings(), []string{"alpha unmapped_vm " + alpha.VMs[2]}; !slices.Equal(got, want) {
		t.Errorf("findings %v after the cycle, want %v", got, want)
	}
	if w := e.writes(); len(w) != 2 {
		t.Errorf("announcements %q, want the finding's annotation and alert once", w)
	}
}
