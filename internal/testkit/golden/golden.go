// Package golden compares a test's output with a file under testdata, and rewrites the file when
// the test runs with -update.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with the output of the tests")

// Assert fails the test when got differs from the file at path (relative to the test's package
// directory, e.g. testdata/metrics.golden), showing the difference; with -update it writes got to
// the file instead, so that a reviewer sees the change as a diff of the file.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got; run with -update if the change is intended):\n%s", path, diff)
	}
}

// Updating reports whether the tests run with -update, for a test that refreshes a file other
// than a golden one (a screenshot in docs/) only when asked.
func Updating() bool { return *update }
