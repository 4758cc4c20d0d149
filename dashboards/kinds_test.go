package dashboards

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestNoListOfKinds: the dashboards list no kinds of drift by name, where a new kind would be
// missing unnoticed; they point to docs/how-it-works.md, whose table is made from the kinds'
// declarations. (The panels read the kind label, so they show every kind.)
func TestNoListOfKinds(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := fs.ReadFile(FS, path)
		if err != nil {
			return err
		}
		for _, k := range collector.Kinds {
			if strings.Contains(string(b), string(k)) {
				t.Errorf("%s names the kind %s: point to docs/how-it-works.md instead", path, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
