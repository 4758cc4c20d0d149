package report

import (
	"fmt"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// The status page's words for times and announcements. Every time carries its age, so that an
// operator never has to subtract from the clock.

// formatAgo returns how long ago t was ("2h 5m ago"), "never" for the zero time.
func formatAgo(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return formatDuration(now.Sub(t)) + " ago"
}

// formatSpan returns the time from a to b in words.
func formatSpan(a, b time.Time) string { return formatDuration(b.Sub(a)) }

// formatAt returns t to the minute in UTC, short enough for a table cell.
func formatAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// formatSeconds returns a duration of whole seconds in words, "unknown" for none.
func formatSeconds(s *int64) string {
	if s == nil {
		return "unknown"
	}
	return formatDuration(time.Duration(*s) * time.Second)
}

// formatDuration writes d with its two largest units: 45s, 5m 3s, 2h 5m, 3d 4h.
func formatDuration(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// announcementLine is one part of a finding's announcement in words.
type announcementLine struct {
	Part  string             // annotation, alert, or "" for the finding as a whole
	State notifier.PartState // "" when the notifier has nothing of the finding
	Text  string
	At    *time.Time // when CloudStack accepted it, or when it was last tried
}

// announcementLines says where a finding's annotation and alert are, as the notifier's view has
// them, in the words of the mode the notifier runs in (see Report.NotifierMode).
func announcementLines(a *notifier.AnnouncementView, mode string, now time.Time) []announcementLine {
	if a == nil {
		switch mode {
		case "":
			return nil
		case "off":
			return []announcementLine{{Text: "not announced: the notifier is off (notifier.enabled)"}}
		case "alertmanager":
			return []announcementLine{{Text: "not yet: announced when Alertmanager reports its alert firing"}}
		default:
			return []announcementLine{{Text: "not yet: the next pass announces it"}}
		}
	}
	return []announcementLine{partLine("annotation", a.Annotation, now), partLine("alert", a.Alert, now)}
}

func partLine(part string, v notifier.PartView, now time.Time) announcementLine {
	l := announcementLine{Part: part, State: v.State, At: v.At}
	switch v.State {
	case notifier.PartSent:
		l.Text = "sent"
		if v.At != nil {
			l.Text = "sent " + formatAgo(*v.At, now)
		}
	case notifier.PartOwed:
		l.Text = "owed: the next pass sends it"
	case notifier.PartFailed:
		l.Text = "failed"
		if v.At != nil {
			l.Text = "failed " + formatAgo(*v.At, now)
		}
		l.Text += ": tried again next pass"
	case notifier.PartCapped:
		l.Text = "capped: counted in a summary instead"
	case notifier.PartOff:
		l.Text = "not sent: switched off in the notifier's settings"
	default:
		l.Text = string(v.State)
	}
	return l
}

// guideOf is GuideOf for the templates: the zero Guide for a kind without one.
func guideOf(k collector.Kind) Guide {
	g, _ := GuideOf(k)
	return g
}
