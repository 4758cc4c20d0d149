package changelog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cksdriftexporter "github.com/cks-drift-exporter/cks-drift-exporter"
)

const sample = "# Changelog\n\n" +
	"## [Unreleased]\n\n### Changed\n\n" +
	"- A plain change,\n  on two lines.\n" +
	"- A change with a note. **Upgrading:** filters\n  need the new text.\n\n" +
	"  ```sql\n  GRANT SELECT;\n  ```\n" +
	"- Another. **Upgrade**: say so.\n" +
	"- And one. Upgrade notes: older spelling.\n\n" +
	"### Upgrading\n\n- Grant the table\n  first.\n\n" +
	"## [0.2.0] - 2026-12-10\n\n### Upgrading\n\nRestart the service.\n\n" +
	"## [0.1.0] - 2026-12-01\n\n### Added\n\n- Everything.\n\n### Upgrading\n\nFrom the snapshots:\n\n- One.\n- Two.\n\n" +
	"[Unreleased]: https://example.com/compare/v0.2.0...HEAD\n"

// TestParse: the bullets of Upgrading subsections (or their text when they have none) and the
// bullets that carry a note elsewhere, whole and on one line; nothing else.
func TestParse(t *testing.T) {
	want := []Note{
		{Unreleased, "A change with a note. **Upgrading:** filters need the new text. ```sql GRANT SELECT; ```"},
		{Unreleased, "Another. **Upgrade**: say so."},
		{Unreleased, "And one. Upgrade notes: older spelling."},
		{Unreleased, "Grant the table first."},
		{"0.2.0", "Restart the service."},
		{"0.1.0", "One."},
		{"0.1.0", "Two."},
	}
	if diff := cmp.Diff(want, Parse(sample)); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// TestBetween: the notes of the versions after previous up to current, oldest first.
func TestBetween(t *testing.T) {
	notes := Parse(sample)
	texts := func(ns []Note) (out []string) {
		for _, n := range ns {
			out = append(out, n.Version+": "+n.Text)
		}
		return out
	}
	unreleased := []string{
		"Unreleased: A change with a note. **Upgrading:** filters need the new text. ```sql GRANT SELECT; ```",
		"Unreleased: Another. **Upgrade**: say so.",
		"Unreleased: And one. Upgrade notes: older spelling.",
		"Unreleased: Grant the table first.",
	}
	for _, tc := range []struct {
		previous, current string
		want              []string
		rollback          bool
	}{
		{"0.1.0", "0.2.0", []string{"0.2.0: Restart the service."}, false},
		{"0.1.0", "0.2.0+3.gabcdef0", append([]string{"0.2.0: Restart the service."}, unreleased...), false},
		{"0.2.0", "0.2.0+3.gabcdef0.dirty", unreleased, false},
		{"0.2.0+1.gaaaaaaa", "0.2.0+3.gabcdef0", unreleased, false},
		{"0.1.0+7.gaaaaaaa", "0.2.0", []string{"0.2.0: Restart the service."}, false},
		{"unknown (state format 1)", "0.2.0", []string{"0.1.0: One.", "0.1.0: Two.", "0.2.0: Restart the service."}, false},
		{"0.2.0", "0.2.0", nil, false},
		{"0.2.0+3.gabcdef0", "0.2.0", nil, true},
		{"0.2.0", "0.1.0+9.gabcdef0", nil, true},
		{"0.1.0", "not a version", nil, false},
	} {
		got, rollback := Between(notes, tc.previous, tc.current)
		if diff := cmp.Diff(tc.want, texts(got)); diff != "" || rollback != tc.rollback {
			t.Errorf("%s to %s: rollback %v, want %v; notes (-want +got):\n%s", tc.previous, tc.current, rollback, tc.rollback, diff)
		}
	}
}

// TestEveryNoteOfTheChangelogIsRead: each line of CHANGELOG.md that starts an upgrade note
// (**Upgrading:**, **Upgrade:**, Upgrade notes:) and each bullet of its Upgrading subsections is in a note Parse
// returns, so that a note written another way is not left out of the upgrade's log.
func TestEveryNoteOfTheChangelogIsRead(t *testing.T) {
	notes := Parse(cksdriftexporter.Changelog)
	all := ""
	for _, n := range notes {
		all += n.Text + "\n"
	}
	sub := ""
	for i, line := range strings.Split(cksdriftexporter.Changelog, "\n") {
		if strings.HasPrefix(line, "### ") {
			sub = line
		}
		if strings.HasPrefix(line, "## ") {
			sub = ""
		}
		marked := inlineNote.MatchString(line)
		if !marked && !(sub == "### Upgrading" && strings.HasPrefix(line, "- ")) {
			continue
		}
		if words := strings.Fields(strings.TrimPrefix(line, "- ")); !strings.Contains(all, strings.Join(words, " ")) {
			t.Errorf("CHANGELOG.md line %d is in no upgrade note: %s", i+1, line)
		}
	}
	if len(notes) < 10 {
		t.Errorf("CHANGELOG.md has %d upgrade notes, want at least the 10 of 0.1.0 and after", len(notes))
	}
}
