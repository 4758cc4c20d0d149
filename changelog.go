// Package cksdriftexporter holds what the repository's root gives the binary: CHANGELOG.md,
// whose Upgrading notes the first start after an upgrade logs (internal/changelog reads them).
package cksdriftexporter

import _ "embed"

// Changelog is CHANGELOG.md as built: the one home of the upgrade notes, which the packages also
// ship (/usr/share/doc/cks-drift-exporter/).
//
//go:embed CHANGELOG.md
var Changelog string
