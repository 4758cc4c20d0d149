package exporter

import (
	"context"
	"fmt"
	"io"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
)

// Exit codes of --once; ExitNewerState is every mode's.
const (
	ExitClean    = 0 // no drift
	ExitDrift    = 1 // drift found
	ExitCheckErr = 2 // the check could not run
	// ExitNodesUnread: no drift found, but the node side of at least one checked cluster could
	// not be read, so "no drift" is not the whole answer.
	ExitNodesUnread = 3
	// ExitNewerState: the state file is of a newer format than this binary reads
	// (state.ErrNewerFormat), after a rollback: it stops before any check or announcement. The
	// systemd unit does not restart it (RestartPreventExitStatus).
	ExitNewerState = 4
)

// RunOnce runs a single cycle without notifications, prints the findings in format (report.FormatTable,
// report.FormatWide or report.FormatJSON) and returns the exit code.
func (e *Exporter) RunOnce(ctx context.Context, w io.Writer, format string) int {
	cfg, src := e.current()
	if !cfg.Check.Enabled {
		fmt.Fprintf(w, "check.enabled is false in %s: nothing was checked\n", e.configFile)
		return ExitCheckErr
	}
	snap := cycle(ctx, e.snapshot.Load(), cfg, src, nil, collector.NewTurns(), e.logger, e.now)
	rep := report.New(snap, report.Context{Now: e.now(), UIURL: cfg.CloudStack.UI()})
	if format == report.FormatJSON {
		_ = report.WriteJSON(w, rep)
	} else {
		report.WriteTable(w, rep, format == report.FormatWide)
	}
	switch {
	case !snap.Success:
		return ExitCheckErr
	case rep.FindingCount() > 0:
		return ExitDrift
	case rep.Summary.Unreachable > 0:
		return ExitNodesUnread
	default:
		return ExitClean
	}
}
