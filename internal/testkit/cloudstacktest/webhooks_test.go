package cloudstacktest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWebhookAnswersAsRecorded: listWebhooks and listWebhookDeliveries answer items with exactly
// the keys of the recorded 4.20 answers (WebhookResponse, WebhookDeliveryResponse), deliveries
// newest first with what the receiver answered; before 4.20 neither command exists, and
// listCapabilities says the release.
func TestWebhookAnswersAsRecorded(t *testing.T) {
	s, _ := newTestServer(t)
	var answered []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answered = append(answered, r.Header.Get("X-CS-Event"))
		if r.Header.Get("X-CS-Event") == "VM.EXPUNGE" {
			http.Error(w, "Unauthorized: X-CS-Signature is missing or wrong", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(receiver.Close)
	var hook *WebhookRecord
	s.Update(func(w *World) {
		w.Release = Release420
		hook = w.AddWebhook(WebhookRecord{Name: "cks-drift-exporter", Description: "events", PayloadURL: receiver.URL + "/cloudstack/events", SecretKey: "k"})
		w.AddWebhook(WebhookRecord{Name: "off", State: "Disabled", PayloadURL: receiver.URL + "/off"})
	})
	for _, typ := range []string{"KUBERNETES.CLUSTER.SCALE", "VM.EXPUNGE"} {
		d := s.DeliverEvent(context.Background(), ActionEvent{UUID: "0e0d7a3c-5f1b-4c2d-9e8f-000000000001", Type: typ, AccountUUID: "a"})
		if len(d) != 1 {
			t.Fatalf("%s delivered to %d webhooks, want the one Enabled Global webhook", typ, len(d))
		}
	}
	// VM.EXPUNGE is refused: CloudStack's three tries back to back.
	if want := []string{"KUBERNETES.CLUSTER.SCALE", "VM.EXPUNGE", "VM.EXPUNGE", "VM.EXPUNGE"}; !slices.Equal(answered, want) {
		t.Errorf("the receiver got %v, want %v", answered, want)
	}

	for _, tc := range []struct{ command, key string }{{"listWebhooks", "webhook"}, {"listWebhookDeliveries", "webhookdelivery"}} {
		recorded := recordedItems(t, tc.command, tc.key)
		status, _, body := rawCall(t, s, url.Values{"command": {tc.command}, "listall": {"true"}})
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.command, status, body)
		}
		got := items(t, decodeEnvelope(t, body, tc.command), tc.key)
		if k, want := allKeys(got), allKeys(recorded); !slices.Equal(k, want) {
			t.Errorf("%s: the items' keys %v, recorded %v", tc.command, k, want)
		}
		if tc.command == "listWebhookDeliveries" {
			if len(got) != 2 || got[0]["eventtype"] != "VM.EXPUNGE" || got[0]["success"] != false ||
				!strings.HasPrefix(got[0]["response"].(string), "Unauthorized: X-CS-Signature") || got[1]["success"] != true || got[0]["webhookid"] != hook.ID {
				t.Errorf("deliveries, newest first: %v", got)
			}
		}
	}

	status, _, body := rawCall(t, s, url.Values{"command": {"listCapabilities"}})
	if status != http.StatusOK || !strings.Contains(string(body), `"cloudstackversion":"4.20.0.0"`) {
		t.Errorf("listCapabilities on 4.20: %d %s", status, body)
	}
	s.Update(func(w *World) { w.Release = Release418 })
	for _, command := range []string{"listWebhooks", "listWebhookDeliveries"} {
		if status, _, body := rawCall(t, s, url.Values{"command": {command}}); status != ErrUnknownCmd {
			t.Errorf("%s on 4.18: %d %s, want %d", command, status, body, ErrUnknownCmd)
		}
		if status, _, body := rawCall(t, s, url.Values{"command": {"listApis"}, "name": {command}}); status != ErrParam {
			t.Errorf("listApis name=%s on 4.18: %d %s, want %d", command, status, body, ErrParam)
		}
	}
}

// recordedItems reads the items of a recorded 4.20 answer.
func recordedItems(t *testing.T, command, key string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "releases", "4.20", command+".json"))
	if err != nil {
		t.Fatal(err)
	}
	got := items(t, decodeEnvelope(t, b, command), key)
	if len(got) == 0 {
		t.Fatalf("the recorded %s has no %s", command, key)
	}
	return got
}

func items(t *testing.T, inner map[string]any, key string) []map[string]any {
	t.Helper()
	b, _ := json.Marshal(inner[key])
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return out
}

// allKeys are the keys of any of items, sorted (Gson leaves out a null field, such as a
// webhook's missing description).
func allKeys(items []map[string]any) []string {
	var out []string
	for _, m := range items {
		out = append(out, keys(m)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
