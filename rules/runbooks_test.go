package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/markdown"
)

const runbooksFile = "../docs/runbooks.md"

// runbookProblems returns what is wrong with an alert's runbook_url given the runbooks'
// sections: it must be RunbookBaseURL#<the alert's section>, and the section must say what to
// check and what to do.
func runbookProblems(r Rule, secs map[string]string) []string {
	url := r.Annotations["runbook_url"]
	base, frag, ok := strings.Cut(url, "#")
	if !ok || base != RunbookBaseURL {
		return []string{r.Alert + ": runbook_url " + url + " is not " + RunbookBaseURL + "#<section>"}
	}
	if frag != markdown.Anchor(r.Alert) {
		return []string{r.Alert + ": runbook_url points at #" + frag + ", not at the alert's own section #" + markdown.Anchor(r.Alert)}
	}
	text, ok := secs[frag]
	if !ok {
		return []string{r.Alert + ": runbook_url points at #" + frag + ", which is no section of " + runbooksFile}
	}
	var problems []string
	for _, want := range []string{"What to check", "What to do"} {
		if !strings.Contains(text, want) {
			problems = append(problems, r.Alert+": its runbook section does not say "+want)
		}
	}
	return problems
}

// TestRunbookURLs: every alert links its own section of docs/runbooks.md, which exists and says
// what to check and what to do.
func TestRunbookURLs(t *testing.T) {
	doc, err := os.ReadFile(runbooksFile)
	if err != nil {
		t.Fatal(err)
	}
	secs := markdown.Sections(string(doc), 2)
	all, _ := loadRules(t)
	for _, r := range all {
		for _, p := range runbookProblems(r, secs) {
			t.Error(p)
		}
	}
	if _, ok := secs["severities"]; !ok {
		t.Errorf("%s has no section Severities: the choice of severities is written down there", runbooksFile)
	}
}

// TestRunbookProblems shows that the check fails: a link to another base, to another alert's
// section, to a section that does not exist, and to a section that says nothing to do.
func TestRunbookProblems(t *testing.T) {
	secs := markdown.Sections("# Runbooks\n\n## CKSA\n\nWhat to check: x.\n\nWhat to do: y.\n\n## CKS B\n\nWhat to check: only.\n", 2)
	if secs["cks-b"] == "" || secs["cksa"] == "" {
		t.Fatalf("sections %q: want cksa and cks-b", secs)
	}
	rule := func(name, url string) Rule {
		return Rule{Alert: name, Annotations: map[string]string{"runbook_url": url}}
	}
	for _, tc := range []struct {
		r    Rule
		want string
	}{
		{rule("CKSA", "https://example.com/runbooks.md#cksa"), "is not " + RunbookBaseURL},
		{rule("CKSA", RunbookBaseURL), "is not " + RunbookBaseURL + "#<section>"},
		{rule("CKSA", RunbookBaseURL+"#cks-b"), "not at the alert's own section #cksa"},
		{rule("CKSC", RunbookBaseURL+"#cksc"), "which is no section"},
		{rule("CKS B", RunbookBaseURL+"#cks-b"), "does not say What to do"},
	} {
		got := runbookProblems(tc.r, secs)
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s %s: problems %q, want one with %q", tc.r.Alert, tc.r.Annotations["runbook_url"], got, tc.want)
		}
	}
	if got := runbookProblems(rule("CKSA", RunbookBaseURL+"#cksa"), secs); len(got) != 0 {
		t.Errorf("a good link: %q", got)
	}
}
