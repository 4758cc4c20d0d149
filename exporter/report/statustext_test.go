package report

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                  "0s",
		45 * time.Second:              "45s",
		5*time.Minute + 3*time.Second: "5m 3s",
		2*time.Hour + 5*time.Minute:   "2h 5m",
		76 * time.Hour:                "3d 4h",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestAnnouncementLines: each state of a part in words, with its age where CloudStack took it or
// it was tried; a finding the notifier has nothing of is explained by the notifier's mode.
func TestAnnouncementLines(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	at := now.Add(-5 * time.Minute)
	got := announcementLines(&notifier.AnnouncementView{
		Annotation: notifier.PartView{State: notifier.PartSent, At: &at},
		Alert:      notifier.PartView{State: notifier.PartFailed, At: &at},
	}, "direct", now)
	if len(got) != 2 || got[0].Text != "sent 5m 0s ago" || got[1].Text != "failed 5m 0s ago: tried again next pass" {
		t.Errorf("sent and failed: %+v", got)
	}
	for _, tc := range []struct {
		part notifier.PartState
		want string
	}{
		{notifier.PartOwed, "owed: the next pass sends it"},
		{notifier.PartCapped, "capped: counted in a summary instead"},
		{notifier.PartOff, "not sent: switched off in the notifier's settings"},
	} {
		if l := partLine("alert", notifier.PartView{State: tc.part}, now); l.Text != tc.want {
			t.Errorf("%s: %q, want %q", tc.part, l.Text, tc.want)
		}
	}
	for mode, want := range map[string]string{
		"off":          "not announced: the notifier is off (notifier.enabled)",
		"alertmanager": "not yet: announced when Alertmanager reports its alert firing",
		"direct":       "not yet: the next pass announces it",
	} {
		if got := announcementLines(nil, mode, now); len(got) != 1 || got[0].Text != want {
			t.Errorf("mode %s without an announcement: %+v", mode, got)
		}
	}
	if got := announcementLines(nil, "", now); got != nil {
		t.Errorf("a report without the notifier's view: %+v", got)
	}
}
