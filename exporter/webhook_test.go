package exporter

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// webhookToken is the bearer token of the tests' Alertmanager bridge; alertmanagerMode is the
// notifier configuration that turns the bridge on with it.
const (
	webhookToken     = "bridge-test-token"
	alertmanagerMode = "  mode: alertmanager\n  webhook_token: " + webhookToken + "\n"
)

// postJSON posts body as Alertmanager does, with the bridge's token.
func postJSON(t *testing.T, url, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+webhookToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// webhook is an Alertmanager payload (version 4) for one drift alert, with fields the bridge
// does not know.
func webhook(status, clusterID, clusterName, kind, vmID, vmName, startsAt string) string {
	return `{"version":"4","groupKey":"{}:{}","truncatedAlerts":0,"status":"` + status + `","receiver":"cks-drift-bridge",
	"groupLabels":{},"commonLabels":{},"commonAnnotations":{},"externalURL":"http://am",
	"alerts":[{"status":"` + status + `","labels":{"alertname":"CKSVMMapDrift","severity":"warning","cluster_id":"` + clusterID +
		`","cluster_name":"` + clusterName + `","kind":"` + kind + `","vm_id":"` + vmID + `","vm_name":"` + vmName + `"},
	"annotations":{"summary":"x"},"startsAt":"` + startsAt + `","endsAt":"0001-01-01T00:00:00Z","generatorURL":"http://p","fingerprint":"f1"}]}`
}

// TestAlertmanagerBridge: in alertmanager mode the exporter announces what Alertmanager reports
// firing, once per fingerprint and startsAt, with the same texts as the direct notifier.
func TestAlertmanagerBridge(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	test := cs[0]
	e.writeConfig("  interval: 100ms\n", alertmanagerMode)
	e.start()
	if _, err := e.sim.DeleteMapRow(test.ID, test.VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the finding", func() bool { return len(e.findings()) == 1 })
	e.nextCycles(2)
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("announced before Alertmanager reported it: %q", w)
	}
	var vmID string
	for k := range matching(e.metrics(), `^cks_drift_finding\{`) {
		vmID = strings.Split(strings.Split(k, `vm_id="`)[1], `"`)[0]
	}
	url := e.url + "/alertmanager/webhook"
	firing := webhook("firing", test.ID, "test", "unmapped_vm", vmID, test.VMs[1], "2026-06-05T20:20:29Z")
	for i := 0; i < 3; i++ { // Alertmanager repeats firing alerts
		if code := postJSON(t, url, firing); code != http.StatusOK {
			t.Fatalf("webhook: %d", code)
		}
	}
	e.waitFor("the announcement", func() bool { return len(e.storedAlerts()) == 1 })
	e.nextCycles(2)
	w := e.writes()
	if count(w, "addAnnotation [WARN] VM "+test.VMs[1], "is named as a node of Kubernetes cluster test") != 1 || count(w, "generateAlert") != 1 || len(w) != 2 {
		t.Fatalf("writes: %q", w)
	}

	if code := postJSON(t, url, `{"alerts":[{"labels":{"alertname":"CKSKubectlUnreachable","cluster_id":"x"},"fingerprint":"f2"}]}`); code != http.StatusOK {
		t.Fatalf("non-drift alert: %d", code)
	}
	if code := postJSON(t, url, `{"alerts": [`); code != http.StatusBadRequest {
		t.Fatalf("bad JSON: %d, want 400", code)
	}

	resolved := webhook("resolved", test.ID, "test", "unmapped_vm", vmID, test.VMs[1], "2026-06-05T20:20:29Z")
	if code := postJSON(t, url, resolved); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	e.waitFor("the resolution", func() bool { return count(e.writes(), "[INFO]") == 1 })
	if m := e.metrics(); m[`cks_drift_alertmanager_webhooks_total{result="invalid"}`] != 1 || m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] != 5 {
		t.Fatalf("webhook metrics: %v", matching(m, "webhooks"))
	}
}

func TestBridgeOffInDirectMode(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	if code := postJSON(t, e.url+"/alertmanager/webhook", webhook("firing", cs[0].ID, "test", "unmapped_vm", "v", "n", "2026-06-05T20:20:29Z")); code != http.StatusNotFound {
		t.Fatalf("webhook in direct mode: %d, want 404", code)
	}
}
