package notifier_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestFiringStateIsBounded floods the bridge with made-up firing alerts (once, nine 8 MB posts
// grew the state file to 145 MB): it remembers at most notifier.MaxFiring and counts the rest;
// alerts that match no finding are forgotten two check intervals after they arrived, and one
// that matches a finding is kept.
func TestFiringStateIsBounded(t *testing.T) {
	const extra = 100
	e := newNotifierEnv(t, notifier.Options{FromAlertmanager: true})
	real := nodeFinding("prod", "ghost")
	startsAt := time.Date(2026, 6, 5, 20, 20, 29, 0, time.UTC)
	e.n.Receive(firing("real", e.cluster.ID, real, startsAt))

	const perPost, total = 1000, notifier.MaxFiring + extra
	for sent := 0; sent < total; sent += perPost {
		var w notifier.Webhook
		for i := sent; i < min(sent+perPost, total); i++ {
			p := firing(fmt.Sprintf("made-up-%06d", i), fmt.Sprintf("cluster-%06d", i), nodeFinding("x", fmt.Sprintf("n%d", i)), startsAt)
			w.Alerts = append(w.Alerts, p.Alerts...)
		}
		e.n.Receive(w)
	}
	if got := len(e.saved(t).Firing); got != notifier.MaxFiring {
		t.Fatalf("remembered %d firing alerts, want the bound %d", got, notifier.MaxFiring)
	}
	if got := e.counter(t, "cks_drift_alertmanager_firing_dropped_total", "reason", "limit"); got != extra+1 {
		t.Errorf("dropped at the limit = %v, want %d", got, extra+1)
	}

	// Within the wait nothing is forgotten: the exporter's own cycle may not have found it yet.
	e.advance(testInterval)
	e.notify(e.status(real))
	if got := len(e.saved(t).Firing); got != notifier.MaxFiring {
		t.Fatalf("after one interval: %d firing alerts remembered, want %d", got, notifier.MaxFiring)
	}
	e.advance(testInterval + time.Second)
	e.notify(e.status(real))
	firing := e.saved(t).Firing
	if _, ok := firing["real"]; len(firing) != 1 || !ok {
		t.Fatalf("after two intervals: %d firing alerts remembered (the real one: %v), want only the real one", len(firing), ok)
	}
	if got := e.counter(t, "cks_drift_alertmanager_firing_dropped_total", "reason", "gone"); got != notifier.MaxFiring-1 {
		t.Errorf("dropped as gone = %v, want %d", got, notifier.MaxFiring-1)
	}
	if a := e.annotations(); len(a) != 1 {
		t.Errorf("annotations %q, want only the real finding's", a)
	}
}

// TestLongLabelsAreNotDriftAlerts: an alert with a label longer than any cluster id or node name
// is not remembered, so a few posts cannot fill the state with megabytes.
func TestLongLabelsAreNotDriftAlerts(t *testing.T) {
	e := newNotifierEnv(t, notifier.Options{FromAlertmanager: true})
	long := string(make([]byte, 257))
	for _, f := range []collector.Finding{
		{Kind: collector.KindNodeWithoutVM, VMName: long},
		{Kind: collector.KindUnmappedVM, VMID: long},
	} {
		if got := e.n.Receive(firing("fp", e.cluster.ID, f, time.Now())); got != 0 {
			t.Errorf("Receive(%d-byte label) = %d, want 0", len(long), got)
		}
	}
	if got := e.n.Receive(firing(long, e.cluster.ID, nodeFinding("prod", "n"), time.Now())); got != 0 {
		t.Errorf("Receive(%d-byte fingerprint) = %d, want 0", len(long), got)
	}
}
