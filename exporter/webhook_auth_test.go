package exporter

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestWebhookNeedsItsToken: the webhook makes the exporter write to CloudStack, so it answers 401
// to everyone who does not present notifier.webhook_token, as a bearer token or as the password of
// basic auth (where the web configuration's basic auth takes the Authorization header), and
// nothing they post is received.
func TestWebhookNeedsItsToken(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", alertmanagerMode)
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	body := webhook("firing", cs[0].ID, "test", "unmapped_vm", "v", "n", "2026-06-05T20:20:29Z")
	tests := []struct {
		name          string
		authorization string
		basic         []string // user, password
		want          int
	}{
		{name: "no credentials", want: http.StatusUnauthorized},
		{name: "another bearer token", authorization: "Bearer not-" + webhookToken, want: http.StatusUnauthorized},
		{name: "a prefix of the token", authorization: "Bearer " + webhookToken[:5], want: http.StatusUnauthorized},
		{name: "the token without a scheme", authorization: webhookToken, want: http.StatusUnauthorized},
		{name: "the token in another scheme", authorization: "Token " + webhookToken, want: http.StatusUnauthorized},
		{name: "a scrape credential", basic: []string{"prometheus", "correct-horse-battery-staple"}, want: http.StatusUnauthorized},
		{name: "bearer token", authorization: "Bearer " + webhookToken, want: http.StatusOK},
		{name: "bearer token, lower-case scheme", authorization: "bearer " + webhookToken, want: http.StatusOK},
		{name: "basic auth with the token as password", basic: []string{"alertmanager", webhookToken}, want: http.StatusOK},
	}
	unauthorized := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, e.url+"/alertmanager/webhook", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			if tt.basic != nil {
				req.SetBasicAuth(tt.basic[0], tt.basic[1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized {
				unauthorized++
				if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	m := e.metrics()
	if m[`cks_drift_alertmanager_webhooks_total{result="unauthorized"}`] != float64(unauthorized) || m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] != 3 {
		t.Fatalf("webhook metrics %v, want %d unauthorized and 3 accepted", matching(m, "webhooks"), unauthorized)
	}
}

// TestWebhookBodyLimit posts nine 8 MB bodies (once, they grew the state file to 145 MB), sent
// chunked so that no Content-Length announces them: each is refused with 413 after the first
// mebibyte, counted, and the state file does not grow. One with a Content-Length is refused
// before the webhook runs.
func TestWebhookBodyLimit(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test"})
	e.writeConfig("  interval: 1h\n", alertmanagerMode)
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })
	stateFile := filepath.Join(e.dir, "state.db")
	before := fileSize(t, stateFile)

	alert := strings.TrimSuffix(strings.SplitN(webhook("firing", cs[0].ID, "test", "unmapped_vm", "v", "n", "2026-06-05T20:20:29Z"), `"alerts":[`, 2)[1], "]}")
	var big bytes.Buffer
	big.WriteString(`{"version":"4","status":"firing","alerts":[`)
	for i := 0; big.Len() < 8<<20; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		big.WriteString(strings.Replace(alert, `"fingerprint":"f1"`, `"fingerprint":"f`+strings.Repeat("x", i%50)+string(rune('a'+i%26))+`"`, 1))
	}
	big.WriteString("]}")
	for i := range 10 {
		body := io.Reader(strings.NewReader(big.String()))
		if i < 9 {
			body = io.MultiReader(body) // no length: sent chunked
		}
		req, err := http.NewRequest(http.MethodPost, e.url+"/alertmanager/webhook", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+webhookToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("post %d of %d bytes: %v", i+1, big.Len(), err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("post %d of %d bytes (chunked %v): %d, want 413", i+1, big.Len(), i < 9, resp.StatusCode)
		}
	}
	if m := e.metrics(); m[`cks_drift_alertmanager_webhooks_total{result="too_large"}`] != 9 || m[`cks_drift_alertmanager_webhooks_total{result="accepted"}`] != 0 {
		t.Fatalf("webhook metrics %v, want 9 too_large and none accepted", matching(m, "webhooks"))
	}
	if after := fileSize(t, stateFile); after > before+64<<10 {
		t.Fatalf("state file grew from %d to %d bytes", before, after)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
