package exporter

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/version"

	cksdriftexporter "github.com/cks-drift-exporter/cks-drift-exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
)

// TestLogVersionChange: the first start after an upgrade names both versions; a start of the
// same version, and one with a new state file, log nothing.
func TestLogVersionChange(t *testing.T) {
	for _, tc := range []struct{ previous, want string }{
		{"0.1.0+3.gaaaaaaa", `previous_version=0.1.0+3.gaaaaaaa version=` + version.Version},
		{version.Version, ""},
		{"", ""},
	} {
		var buf logtest.Buffer
		logVersionChange(slog.New(slog.NewTextHandler(&buf, nil)), tc.previous)
		got := buf.String()
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("previous %q: logged %q, want %q", tc.previous, got, tc.want)
		}
	}
}

// TestUpgradeNotesLogged: an upgrade from 0.1.0 to a later build logs, after the line with both
// versions, each upgrade note of CHANGELOG.md's Unreleased section (the binary's embedded copy),
// one line each; a rollback logs that it is one and no note.
func TestUpgradeNotesLogged(t *testing.T) {
	var buf logtest.Buffer
	logVersionNotes(slog.New(slog.NewTextHandler(&buf, nil)), "0.1.0", "0.1.0+9.gabcdef0", cksdriftexporter.Changelog)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(lines[0], "previous_version=0.1.0 version=0.1.0+9.gabcdef0") {
		t.Fatalf("first line %q, want both versions", lines[0])
	}
	notes := lines[1:]
	if want := "upgrade_notes=" + strconv.Itoa(len(notes)); !strings.Contains(lines[0], want) {
		t.Errorf("first line %q, want %s", lines[0], want)
	}
	log := buf.String()
	for _, want := range []string{
		"GRANT SELECT, CREATE ON cloud.vm_instance_details", // the Upgrading subsection's note
		"filters on the old alert text need the new one",    // a note inside a Changed bullet
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the upgrade's log lacks the note %q:\n%s", want, log)
		}
	}
	for _, l := range notes {
		if !strings.Contains(l, `msg="Upgrade note" changelog_version=Unreleased`) {
			t.Errorf("a note line %q, want one of Unreleased", l)
		}
	}
	if strings.Contains(log, "POST /-/reload") {
		t.Errorf("an upgrade from 0.1.0 logs 0.1.0's own note:\n%s", log)
	}

	buf = logtest.Buffer{}
	logVersionNotes(slog.New(slog.NewTextHandler(&buf, nil)), "0.1.0+9.gabcdef0", "0.1.0", cksdriftexporter.Changelog)
	if got := buf.String(); !strings.Contains(got, "(a rollback)") || strings.Contains(got, "Upgrade note") {
		t.Errorf("a rollback logged %q", got)
	}
}
