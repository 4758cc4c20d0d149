package report

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

// Guide says what a kind of finding means and what to do about it, in a sentence each, and
// where its runbook is: the section Anchor of docs/runbooks.md, which has the CloudStack
// commands to look with. It is the kind's declaration (collector.Declarations).
type Guide struct {
	Meaning string
	Action  string
	Anchor  string
}

// GuideOf returns the guide of a kind, and false for a kind that is not declared.
func GuideOf(k collector.Kind) (Guide, bool) {
	d, ok := k.Declaration()
	if !ok {
		return Guide{}, false
	}
	return Guide{Meaning: d.Meaning, Action: d.Action, Anchor: d.Anchor}, true
}

// RunbookURL returns the link to the runbook of a kind: its own section, or for a kind that is
// not declared (a newer exporter's, in an old state file) the section of the VM side's alert.
func RunbookURL(k collector.Kind) string {
	if g, ok := GuideOf(k); ok {
		return rules.RunbookBaseURL + "#" + g.Anchor
	}
	return rules.RunbookBaseURL + "#cksvmmapdrift"
}
