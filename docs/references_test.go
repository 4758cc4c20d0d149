package docs

import (
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/docgen"
)

var update = flag.Bool("update", false, "rewrite the generated parts of metrics.md and configuration.md (make docs)")

// TestGeneratedReferences fails when the generated parts of metrics.md (from the metric
// families the exporter registers) or configuration.md (from the configuration's Go types,
// their comments and config.Defaults) are stale; `make docs` rewrites them.
func TestGeneratedReferences(t *testing.T) {
	families, err := exporter.MetricFamilies()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := docgen.ConfigKeys("../config", reflect.TypeOf(config.Config{}), reflect.ValueOf(config.Defaults()))
	if err != nil {
		t.Error(err)
	}
	for _, ref := range []struct{ file, name, generated string }{
		{"metrics.md", "metrics", docgen.MetricsTable(families, "cks_drift_")},
		{"configuration.md", "keys", docgen.ConfigTable(keys)},
	} {
		b, err := os.ReadFile(ref.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := docgen.Replace(string(b), ref.name, ref.generated)
		if err != nil {
			t.Fatalf("%s: %v", ref.file, err)
		}
		if *update {
			if err := os.WriteFile(ref.file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("%s is stale: run make docs (-want +got):\n%s", ref.file, diff)
		}
	}
}
