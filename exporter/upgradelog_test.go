package exporter

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/common/version"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
)

// TestLogVersionChange: the first start after an upgrade names both versions; a start of the
// same version, and one with a new state file, log nothing.
func TestLogVersionChange(t *testing.T) {
	for _, tc := range []struct{ previous, want string }{
		{"0.1.0+3.gaaaaaaa", `previous_version=0.1.0+3.gaaaaaaa version=` + version.Version},
		{version.Version, ""},
		{"", ""},
	} {
		var buf logtest.Buffer
		logVersionChange(slog.New(slog.NewTextHandler(&buf, nil)), tc.previous)
		got := buf.String()
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("previous %q: logged %q, want %q", tc.previous, got, tc.want)
		}
	}
}
