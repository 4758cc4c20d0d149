package exporter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Exit codes of --once.
const (
	ExitClean    = 0 // no drift
	ExitDrift    = 1 // drift found
	ExitCheckErr = 2 // the check could not run
	// ExitNodesUnread: no drift found, but the node side of at least one checked cluster could
	// not be read, so "no drift" is not the whole answer.
	ExitNodesUnread = 3
)

// RunOnce runs a single cycle without notifications, prints the findings in format (FormatTable,
// FormatWide or FormatJSON) and returns the exit code.
func (e *Exporter) RunOnce(ctx context.Context, w io.Writer, format string) int {
	cfg, src := e.current()
	if !cfg.Check.Enabled {
		fmt.Fprintf(w, "check.enabled is false in %s: nothing was checked\n", e.configFile)
		return ExitCheckErr
	}
	snap := cycle(ctx, e.snapshot.Load(), cfg, src, nil, e.logger, e.now)
	report := NewReport(snap)
	if format == FormatJSON {
		enc := json.NewEncoder(jsonEscaper{w})
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	} else {
		writeTable(w, report, format == FormatWide)
	}
	switch {
	case !snap.Success:
		return ExitCheckErr
	case report.FindingCount() > 0:
		return ExitDrift
	case nodesUnread(report):
		return ExitNodesUnread
	default:
		return ExitClean
	}
}

// nodesUnread reports whether a checked cluster's nodes could not be listed.
func nodesUnread(r Report) bool {
	for _, c := range r.Clusters {
		if c.Checked && !c.KubectlReachable {
			return true
		}
	}
	return false
}
