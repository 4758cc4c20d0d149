package exporter

import (
	"log/slog"

	"github.com/prometheus/common/version"

	cksdriftexporter "github.com/cks-drift-exporter/cks-drift-exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/changelog"
)

// logVersionChange says, at the first start of a version with a state file another version
// wrote (an upgrade or a rollback), which version ran before and, after an upgrade, each upgrade
// note of CHANGELOG.md (embedded in the binary) from the versions in between: the lines an
// operator looks for when the exporter behaves differently after a package upgrade. previous is
// empty for a new state file, and "unknown (state format 1)" for one no release recorded its
// version in (every note up to this version is logged then).
func logVersionChange(logger *slog.Logger, previous string) {
	logVersionNotes(logger, previous, version.Version, cksdriftexporter.Changelog)
}

func logVersionNotes(logger *slog.Logger, previous, current, changelogText string) {
	if previous == "" || previous == current {
		return
	}
	notes, rollback := changelog.Between(changelog.Parse(changelogText), previous, current)
	if rollback {
		logger.Info("First start of this version with this state file, which a newer version wrote before (a rollback)",
			"previous_version", previous, "version", current)
		return
	}
	logger.Info("First start of this version with this state file: the upgrade notes of the versions in between follow (CHANGELOG.md, /usr/share/doc/cks-drift-exporter/)",
		"previous_version", previous, "version", current, "upgrade_notes", len(notes))
	for _, n := range notes {
		logger.Info("Upgrade note", "changelog_version", n.Version, "note", n.Text)
	}
}
