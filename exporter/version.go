package exporter

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// A binary built with `make build` gets its version from -ldflags. One built with plain
// `go build` or `go install` (and `go run`, as `make demo` does) gets it here from the build
// information the Go toolchain records, so that the status page, the startup line and
// cks_drift_exporter_build_info never show an empty version.
func init() {
	if bi, ok := debug.ReadBuildInfo(); ok {
		version.Version = buildVersion(version.Version, bi)
	}
}

// buildVersion returns the version set by -ldflags, else the main module's version from the build
// information (a tag, or a pseudo-version with the commit when built from a checkout), else
// "devel".
func buildVersion(ldflags string, bi *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "devel"
}
