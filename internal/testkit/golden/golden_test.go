package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestAssert(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, got string
		fail            bool
	}{
		{"equal", path, "a\nb\n", false},
		{"different", path, "a\nc\n", true},
		{"missing file", path + ".missing", "a\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Assert(r, tc.path, []byte(tc.got))
			if r.failed != tc.fail {
				t.Errorf("failed %v, want %v", r.failed, tc.fail)
			}
		})
	}
}
