package exporter

import (
	"runtime/debug"
	"testing"

	"github.com/prometheus/common/version"
)

func TestBuildVersion(t *testing.T) {
	for _, tc := range []struct {
		name, ldflags, module, want string
	}{
		{"ldflags win", "v1.2.3", "v0.0.0-20261201064900-a696859d0c3e", "v1.2.3"},
		{"go build from a checkout", "", "v0.0.0-20261201064900-a696859d0c3e+dirty", "v0.0.0-20261201064900-a696859d0c3e+dirty"},
		{"go install of a tag", "", "v1.4.0", "v1.4.0"},
		{"go run", "", "(devel)", "devel"},
		{"no module version", "", "", "devel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/cks-drift-exporter/cks-drift-exporter", Version: tc.module}}
			if got := buildVersion(tc.ldflags, bi); got != tc.want {
				t.Errorf("buildVersion(%q, %q) = %q, want %q", tc.ldflags, tc.module, got, tc.want)
			}
		})
	}
	// The test binary has no -ldflags version: init must have filled one in.
	if version.Version == "" {
		t.Error("version.Version is empty without -ldflags")
	}
}
