package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// memStore is a Store in memory that counts its saves.
type memStore struct {
	raw   []byte
	saves int
}

func (s *memStore) LoadNotifierState() ([]byte, error) { return s.raw, nil }

func (s *memStore) SaveNotifierState(raw []byte) error {
	s.raw = append([]byte(nil), raw...)
	s.saves++
	return nil
}

// noCloudStack counts the calls it refuses: Receive must not make any.
type noCloudStack struct{ calls int }

var errNoCall = errors.New("no CloudStack call expected from Receive")

func (c *noCloudStack) AddAnnotation(context.Context, string, string) error {
	c.calls++
	return errNoCall
}

func (c *noCloudStack) HasAnnotation(context.Context, string, string, time.Time) (bool, error) {
	c.calls++
	return false, errNoCall
}

func (c *noCloudStack) GenerateAlert(context.Context, int, string, string) error {
	c.calls++
	return errNoCall
}

func (c *noCloudStack) AlertStored(context.Context, int, string) (bool, error) {
	c.calls++
	return false, errNoCall
}

func (c *noCloudStack) ArchiveAlerts(context.Context, int) error {
	c.calls++
	return errNoCall
}

// FuzzWebhook feeds Alertmanager webhook bodies, as the exporter's bridge decodes them, to a
// notifier with an empty state. Receive must record exactly the drift alerts of the payload that
// it reports firing, persist what it records, give the same answer again with no change (also
// after a restart from the saved state) and never call CloudStack.
func FuzzWebhook(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		var w Webhook
		if json.Unmarshal(body, &w) != nil {
			return // the bridge answers 400 and never calls Receive
		}
		store, cs := &memStore{}, &noCloudStack{}
		now := func() time.Time { return time.Date(2024, 6, 5, 8, 0, 0, 0, time.UTC) }
		d := config.Defaults().Notifier
		opts := Options{Enabled: true, FromAlertmanager: true, Annotations: true, Alerts: true, MaxAlertsPerCycle: d.MaxAlertsPerCycle,
			Types: TypeRange{Min: d.AlertTypeMin, Max: d.AlertTypeMax}, Concurrency: d.Concurrency,
			MaxPerClusterPerDay: d.MaxAnnouncementsPerClusterPerDay}
		n, err := New(cs, store, opts, NewMetrics(nil), slog.New(slog.DiscardHandler), now)
		if err != nil {
			t.Fatal(err)
		}

		changed := n.Receive(w)
		firing := savedFiring(t, store)
		if changed == 0 && store.saves != 0 || changed > 0 && store.saves != 1 {
			t.Errorf("Receive() = %d changes with %d saves, want one save exactly when something changed", changed, store.saves)
		}
		if len(firing) > changed {
			t.Errorf("Receive() = %d changes but recorded %d alerts from an empty state", changed, len(firing))
		}
		for fp, got := range firing {
			if !slices.ContainsFunc(w.Alerts, func(a WebhookAlert) bool { return a.Fingerprint == fp && sameFiring(recordOf(a), got) }) {
				t.Errorf("recorded %q as %+v, which no firing drift alert of the payload says", fp, got)
			}
		}
		for _, a := range w.Alerts {
			if _, ok := firing[a.Fingerprint]; !ok && isDrift(a) && a.Status != "resolved" && !resolvedInPayload(w.Alerts, a.Fingerprint) {
				t.Errorf("the firing drift alert %q (labels %v) was not recorded", a.Fingerprint, a.Labels)
			}
		}

		saved := string(store.raw)
		if again := n.Receive(w); again != 0 {
			t.Errorf("the same payload again: Receive() = %d changes, want 0", again)
		}
		if string(store.raw) != saved {
			t.Errorf("the same payload again changed the saved state:\n%s\nwant\n%s", store.raw, saved)
		}
		if changed > 0 {
			restarted, err := New(cs, store, opts, NewMetrics(nil), slog.New(slog.DiscardHandler), now)
			if err != nil {
				t.Fatalf("New() cannot read the state Receive saved: %v\n%s", err, saved)
			}
			if again := restarted.Receive(w); again != 0 {
				t.Errorf("the same payload after a restart: Receive() = %d changes, want 0", again)
			}
		}
		if cs.calls != 0 {
			t.Errorf("Receive() made %d CloudStack calls, want none", cs.calls)
		}
		if got := testutil.ToFloat64(n.metrics.failures); got != 0 {
			t.Errorf("notification failures = %v, want 0", got)
		}
	})
}

// savedFiring returns the firing alerts of the state the notifier saved, none if it saved none.
func savedFiring(t *testing.T, store *memStore) map[string]firingAlert {
	t.Helper()
	if store.raw == nil {
		return nil
	}
	var s state
	if err := json.Unmarshal(store.raw, &s); err != nil {
		t.Fatalf("the saved state cannot be decoded: %v\n%s", err, store.raw)
	}
	return s.Firing
}

// isDrift says whether an alert names a cluster, a fingerprint and a kind of drift, with labels of
// at most 256 bytes: only those are the notifier's.
func isDrift(a WebhookAlert) bool {
	short := len(a.Fingerprint) <= 256 && len(a.Labels["cluster_id"]) <= 256 && len(a.Labels["vm_id"]) <= 256 && len(a.Labels["vm_name"]) <= 256
	return short && a.Labels["cluster_id"] != "" && a.Fingerprint != "" && slices.Contains(collector.Kinds, collector.Kind(a.Labels["kind"]))
}

// recordOf is what the state must hold for a firing drift alert; the zero firingAlert for others.
func recordOf(a WebhookAlert) firingAlert {
	if !isDrift(a) || a.Status == "resolved" {
		return firingAlert{}
	}
	f := collector.Finding{Kind: collector.Kind(a.Labels["kind"]), VMID: a.Labels["vm_id"], VMName: a.Labels["vm_name"]}
	return firingAlert{StartsAt: a.StartsAt, ClusterID: a.Labels["cluster_id"], Key: f.Key()}
}

// sameFiring compares records; the times by instant, as JSON keeps no location.
func sameFiring(a, b firingAlert) bool {
	return a.ClusterID == b.ClusterID && a.Key == b.Key && a.StartsAt.Equal(b.StartsAt)
}

// resolvedInPayload says whether the payload holds a resolved drift alert with the fingerprint.
func resolvedInPayload(alerts []WebhookAlert, fingerprint string) bool {
	return slices.ContainsFunc(alerts, func(a WebhookAlert) bool {
		return a.Fingerprint == fingerprint && isDrift(a) && a.Status == "resolved"
	})
}
