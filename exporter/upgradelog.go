package exporter

import (
	"log/slog"

	"github.com/prometheus/common/version"
)

// logVersionChange says, at the first start of a version with a state file another version
// wrote (an upgrade or a rollback), which version ran before: the line an operator looks for
// when the exporter behaves differently after a package upgrade. previous is empty for a new
// state file, and "unknown (state format 1)" for one no release recorded its version in.
func logVersionChange(logger *slog.Logger, previous string) {
	if previous == "" || previous == version.Version {
		return
	}
	logger.Info("First start of this version with this state file: read CHANGELOG.md's Upgrading notes of every version in between",
		"previous_version", previous, "version", version.Version)
}
