// Package rules holds the Prometheus alerting rules of the exporter and their promtool tests,
// embedded so that other packages (an end-to-end test, an installer) can load them.
package rules

import (
	"embed"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The names of the embedded files in FS.
const (
	RulesFile = "cks-drift.rules.yml"
	TestsFile = "cks-drift.rules.test.yml"
	// PreviousTestsFile tests the rules against the series of the previous release's exporters.
	PreviousTestsFile = "cks-drift.rules.previous.test.yml"
)

// RunbookBaseURL is where every alert's runbook_url points, followed by #<its section>: the
// repository's docs/runbooks.md as a forge shows it.
const RunbookBaseURL = "https://github.com/cks-drift-exporter/cks-drift-exporter/blob/main/docs/runbooks.md"

// FS holds RulesFile and the tests files. A tests file names the rules file by its base name, so
// both must be written to the same directory before running promtool test rules on them.
//
//go:embed cks-drift.rules.yml cks-drift.rules.test.yml cks-drift.rules.previous.test.yml
var FS embed.FS

// File is the part of RulesFile that tests and tools read.
type File struct {
	Groups []Group `yaml:"groups"`
}

// Group is one rule group.
type Group struct {
	Name     string `yaml:"name"`
	Interval string `yaml:"interval"`
	Rules    []Rule `yaml:"rules"`
}

// Rule is one alerting or recording rule.
type Rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	KeepFiring  string            `yaml:"keep_firing_for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Load reads RulesFile from FS.
func Load() (File, error) {
	var f File
	data, err := FS.ReadFile(RulesFile)
	if err != nil {
		return f, err
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%s: %w", RulesFile, err)
	}
	return f, nil
}

// All returns the rules of every group, in order.
func (f File) All() []Rule {
	var all []Rule
	for _, g := range f.Groups {
		all = append(all, g.Rules...)
	}
	return all
}
