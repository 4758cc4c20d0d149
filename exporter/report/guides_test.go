package report

import (
	"os"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/markdown"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

const runbooksFile = "../../docs/runbooks.md"

// runbookSections returns the text of each section of docs/runbooks.md (levels 2 and 3) by its
// anchor, up to the next heading.
func runbookSections(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(runbooksFile)
	if err != nil {
		t.Fatal(err)
	}
	return markdown.Sections(string(doc), 3)
}

// TestEveryKindHasAGuide: the status page says of every kind what it means and what to do, and
// links a section of docs/runbooks.md that exists and says what to check and what to do. A new
// kind's declaration (collector.Declarations) needs its meaning, action and section.
func TestEveryKindHasAGuide(t *testing.T) {
	secs := runbookSections(t)
	for _, k := range collector.Kinds {
		g, ok := GuideOf(k)
		if !ok {
			t.Errorf("kind %s has no guide: declare it in collector.Declarations", k)
			continue
		}
		if g.Meaning == "" || g.Action == "" {
			t.Errorf("kind %s: the guide says nothing of what it means or what to do: %+v", k, g)
		}
		text, ok := secs[g.Anchor]
		if !ok {
			t.Errorf("kind %s links #%s, which is no section of %s", k, g.Anchor, runbooksFile)
			continue
		}
		for _, want := range []string{"What to check", "What to do"} {
			if !strings.Contains(text, want) {
				t.Errorf("kind %s: section #%s does not say %s", k, g.Anchor, want)
			}
		}
		if got, want := RunbookURL(k), rules.RunbookBaseURL+"#"+g.Anchor; got != want {
			t.Errorf("RunbookURL(%s) = %s, want %s", k, got, want)
		}
	}
}

// TestRunbookURLWithoutGuide: a kind without a guide still links its side's alert.
func TestRunbookURLWithoutGuide(t *testing.T) {
	if got := RunbookURL("no_such_kind"); got != rules.RunbookBaseURL+"#cksvmmapdrift" {
		t.Errorf("RunbookURL of a VM-side kind without a guide = %s", got)
	}
}
