// Package rules holds the Prometheus alerting rules of the exporter and their promtool tests,
// embedded so that other packages (an end-to-end test, an installer) can load them.
package rules

import "embed"

// The names of the embedded files in FS.
const (
	RulesFile = "cks-drift.rules.yml"
	TestsFile = "cks-drift.rules.test.yml"
)

// FS holds RulesFile and TestsFile. The tests file names the rules file by its base name, so
// both must be written to the same directory before running promtool test rules on them.
//
//go:embed cks-drift.rules.yml cks-drift.rules.test.yml
var FS embed.FS
