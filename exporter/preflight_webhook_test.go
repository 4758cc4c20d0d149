package exporter

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestPreflightWebhook: with events.webhook.enabled, --preflight finds the Global webhook that
// posts to the exporter and reads its last deliveries, made by the fake CloudStack to the running
// exporter; it names each thing to change, never prints the secret key, and on a release without
// webhooks says so once instead of failing the role's checks.
func TestPreflightWebhook(t *testing.T) {
	e, cs := startWithEvents(t, simulator.ClusterSpec{Name: "alpha"})
	listen := []string{strings.TrimPrefix(e.url, "http://")}
	run := func(t *testing.T) (int, string) {
		t.Helper()
		var out bytes.Buffer
		code := Preflight(context.Background(), e.cfg, listen, &out, slog.New(slog.DiscardHandler))
		if strings.Contains(out.String(), hookSecret) || strings.Contains(out.String(), "Wrong-Secret") {
			t.Errorf("the checklist shows a secret key:\n%s", out.String())
		}
		t.Logf("--preflight:\n%s", out.String())
		return code, out.String()
	}
	fake := e.sim.CloudStack
	deliver := func() {
		fake.DeliverEvent(context.Background(), e.vmEvent("VM.REBOOT", cs[0].VMs[0]))
	}
	wants := func(t *testing.T, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("the checklist lacks %q", w)
			}
		}
	}

	t.Run("no webhook", func(t *testing.T) {
		code, out := run(t)
		wants(t, out, "ok    the key's role allows listWebhooks: yes", "ok    the key's role allows listWebhookDeliveries: yes",
			"FAIL  CloudStack webhook: no Global webhook posts to /cloudstack/events (0 Global webhooks): create one, as a root admin: cmk create webhook name=cks-drift-exporter scope=Global")
		if code != 1 || strings.Contains(out, "its last deliveries") {
			t.Errorf("exit %d, want 1 and no deliveries read", code)
		}
	})

	var hook *cloudstacktest.WebhookRecord
	fake.Update(func(w *cloudstacktest.World) {
		w.AddWebhook(cloudstacktest.WebhookRecord{Name: "tenant", Scope: "Local", PayloadURL: e.url + "/cloudstack/events", SecretKey: hookSecret})
		w.AddWebhook(cloudstacktest.WebhookRecord{Name: "other", PayloadURL: "http://127.0.0.1:1/elsewhere", SecretKey: "x"})
		hook = w.AddWebhook(cloudstacktest.WebhookRecord{Name: "cks-drift-exporter", PayloadURL: e.url + "/cloudstack/events", SecretKey: hookSecret})
	})
	t.Run("sound", func(t *testing.T) {
		_, out := run(t)
		wants(t, out, "ok    CloudStack webhook: webhook cks-drift-exporter ("+hook.ID+") posting to "+e.url+"/cloudstack/events: Enabled, Global, signed with events.webhook.secret_key",
			"ok    its last deliveries: none yet: CloudStack delivers each action event as it happens (cmk execute webhookdelivery webhookid="+hook.ID)
		deliver()
		code, out := run(t)
		wants(t, out, "ok    its last deliveries: 1 of the last 1 answered 200, the last (VM.REBOOT at ")
		if code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
	})

	t.Run("wrong secret", func(t *testing.T) {
		fake.Update(func(*cloudstacktest.World) { hook.SecretKey = "Wrong-Secret" })
		deliver()
		code, out := run(t)
		wants(t, out, "its secret key is not events.webhook.secret_key, so the exporter refuses its deliveries (401)",
			`FAIL  its last deliveries: 1 of the last 2 answered 200, not the last (VM.REBOOT at `,
			`which was answered 'Unauthorized: X-CS-Signature is missing or wrong': the exporter at the payload URL refused the signature`)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})

	t.Run("disabled, another port, unreachable", func(t *testing.T) {
		fake.Update(func(*cloudstacktest.World) {
			hook.SecretKey, hook.PayloadURL = hookSecret, "http://127.0.0.1:1/cloudstack/events"
		})
		deliver()
		fake.Update(func(*cloudstacktest.World) { hook.State = "Disabled" })
		_, out := run(t)
		wants(t, out, "FAIL  CloudStack webhook: webhook cks-drift-exporter ("+hook.ID+") posting to http://127.0.0.1:1/cloudstack/events: it is Disabled: enable it (cmk update webhook id="+hook.ID+" state=Enabled); it posts to port 1, the exporter listens on ",
			`which was answered 'Failed due to : Post "http://127.0.0.1:1/cloudstack/events": dial tcp 127.0.0.1:1: connect: connection refused': `, "CloudStack's management server could not reach the payload URL")
	})

	t.Run("before 4.20", func(t *testing.T) {
		fake.Update(func(w *cloudstacktest.World) { w.Release = cloudstacktest.Release418 })
		t.Cleanup(func() { fake.Update(func(w *cloudstacktest.World) { w.Release = "" }) })
		code, out := run(t)
		wants(t, out, "--    the key's role allows listWebhooks: CloudStack 4.18.0.0 has no listWebhooks (from 4.20.0.0)",
			"FAIL  CloudStack webhook: CloudStack 4.18.0.0 has no webhooks (they arrive in 4.20.0.0): turn events.webhook.enabled off and consume CloudStack's RabbitMQ event bus (events.amqp) instead")
		if code != 1 || strings.Count(out, "FAIL") != 1 {
			t.Errorf("exit %d, want 1 with one failure", code)
		}
	})

	t.Run("recorded answers", func(t *testing.T) {
		for _, cmd := range []string{"listWebhooks", "listWebhookDeliveries"} {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "releases", "4.20", cmd+".json"))
			if err != nil {
				t.Fatal(err)
			}
			fake.Replay(cmd, b)
		}
		var out bytes.Buffer
		Preflight(context.Background(), e.cfg, []string{":9862"}, &out, slog.New(slog.DiscardHandler))
		wants(t, out.String(), "ok    CloudStack webhook: webhook cks-drift-exporter (7c1e2a55-3d1b-4c5e-9a7f-1b2c3d4e5f60) posting to http://127.0.0.1:9862/cloudstack/events: Enabled",
			`FAIL  its last deliveries: 1 of the last 2 answered 200, not the last (VM.EXPUNGE at 2024-06-06T07:51:22+0000), which was answered 'Unauthorized: X-CS-Signature is missing or wrong': the exporter at the payload URL refused the signature`)
		t.Logf("--preflight with the recorded answers:\n%s", out.String())
	})
}

func TestOlderThan(t *testing.T) {
	for _, tc := range []struct {
		version string
		older   bool
	}{{"4.19.1.0", true}, {"4.18.0.0", true}, {"4.20.0.0", false}, {"4.20.0.0-SNAPSHOT", false}, {"4.22.1.0", false}, {"5.0", false}, {"main", false}, {"4.9.3.1", true}} {
		if got := olderThan(tc.version, webhooksSince); got != tc.older {
			t.Errorf("olderThan(%q, %s) = %v", tc.version, webhooksSince, got)
		}
	}
}
