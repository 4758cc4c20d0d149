package notifier_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestForgedResolutionIsIgnored posts "resolved" for a drift alert that Alertmanager reported
// firing, with a startsAt that is not the alert's own, while the drift persists: CloudStack must
// get no "[INFO] ... matches ... again" and the alert must stay open. Only the exact startsAt of
// the firing alert resolves it.
func TestForgedResolutionIsIgnored(t *testing.T) {
	startsAt := time.Date(2026, 6, 5, 20, 20, 29, 0, time.UTC)
	tests := []struct {
		name     string
		startsAt time.Time
		resolves bool
	}{
		{name: "zero startsAt", startsAt: time.Time{}},
		{name: "an hour earlier", startsAt: startsAt.Add(-time.Hour)},
		{name: "a nanosecond earlier", startsAt: startsAt.Add(-time.Nanosecond)},
		{name: "a second later", startsAt: startsAt.Add(time.Second)},
		{name: "the alert's own startsAt", startsAt: startsAt, resolves: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newNotifierEnv(t, notifier.Options{FromAlertmanager: true})
			f := nodeFinding("prod", "ghost")
			if got := e.n.Receive(firing("fp1", e.cluster.ID, f, startsAt)); got != 1 {
				t.Fatalf("Receive(firing) = %d, want 1", got)
			}
			e.notify(e.status(f))
			if a := e.annotations(); len(a) != 1 || !strings.HasPrefix(a[0], "[WARN] Kubernetes node ghost") || len(e.alerts()) != 1 {
				t.Fatalf("after the firing alert: annotations %q, %d alerts; want the announcement", a, len(e.alerts()))
			}

			changed := e.n.Receive(resolved("fp1", e.cluster.ID, f, tt.startsAt))
			e.advance(time.Second)
			e.notify(e.status(f)) // the drift is still there
			info := slices.ContainsFunc(e.annotations(), func(a string) bool { return strings.HasPrefix(a, "[INFO]") })
			archived := e.alerts()[0].Archived
			if !tt.resolves {
				if changed != 0 || info || archived {
					t.Fatalf("forged resolution: Receive = %d, [INFO] annotation %v, alert archived %v; want 0, false, false", changed, info, archived)
				}
				if got := e.counter(t, "cks_drift_alertmanager_resolutions_ignored_total"); got != 1 {
					t.Errorf("resolutions ignored = %v, want 1", got)
				}
				if _, ok := e.saved(t).Firing["fp1"]; !ok {
					t.Error("the firing alert was forgotten")
				}
				return
			}
			if changed != 1 || !info || !archived {
				t.Fatalf("genuine resolution: Receive = %d, [INFO] annotation %v, alert archived %v; want 1, true, true", changed, info, archived)
			}
		})
	}
}
