package rules

import (
	"os"
	"testing"
)

// TestHelmChartCopy: the Helm chart's PrometheusRule is made from its copy of the rules file
// (deploy/helm/cks-drift-exporter/files), which must be this one: after a change here, run
// `make chart`.
func TestHelmChartCopy(t *testing.T) {
	want, err := FS.ReadFile(RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../deploy/helm/cks-drift-exporter/files/" + RulesFile)
	if err != nil || string(got) != string(want) {
		t.Fatalf("the Helm chart's copy of %s differs or is missing (%v): run make chart", RulesFile, err)
	}
}
