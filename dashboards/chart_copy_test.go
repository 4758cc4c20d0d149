package dashboards

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelmChartCopy: the Helm chart's dashboard ConfigMaps are made from its copies of the
// dashboards (deploy/helm/cks-drift-exporter/files/dashboards), which must be these, no more and
// no fewer: after a change here, run `make chart`.
func TestHelmChartCopy(t *testing.T) {
	const dir = "../deploy/helm/cks-drift-exporter/files/dashboards"
	want := make(map[string]string)
	names, err := fs.Glob(FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no dashboards: %v", err)
	}
	for _, name := range names {
		data, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = string(data)
	}
	got := make(map[string]string)
	copies, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, path := range copies {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(path)] = string(data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the Helm chart's dashboards differ from these (-here +chart); run make chart:\n%s", diff)
	}
}
