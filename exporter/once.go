package exporter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Exit codes of --once.
const (
	ExitClean    = 0 // no drift
	ExitDrift    = 1 // drift found
	ExitCheckErr = 2 // the check could not run
)

// RunOnce runs a single cycle without notifications, prints the findings as a table or as JSON
// and returns the exit code.
func (e *Exporter) RunOnce(ctx context.Context, w io.Writer, format string) int {
	cfg, src := e.current()
	if !cfg.Check.Enabled {
		fmt.Fprintf(w, "check.enabled is false in %s: nothing was checked\n", e.configFile)
		return ExitCheckErr
	}
	snap := cycle(ctx, e.snapshot.Load(), cfg, src, nil, e.logger, e.now)
	report := NewReport(snap)
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	} else {
		writeTable(w, report)
	}
	switch {
	case !snap.Success:
		return ExitCheckErr
	case report.FindingCount() > 0:
		return ExitDrift
	default:
		return ExitClean
	}
}

// writeTable prints one line per finding and a summary line.
func writeTable(w io.Writer, r Report) {
	if !r.Cycle.Success {
		fmt.Fprintf(w, "The check could not run: %s\n", r.Cycle.Error)
		return
	}
	checked, unreachable := 0, 0
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tCLUSTER ID\tKIND\tVM NAME\tVM ID\tMESSAGE")
	for _, c := range r.Clusters {
		if c.Checked {
			checked++
			if !c.KubectlReachable {
				unreachable++
			}
		}
		for _, f := range c.Findings {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.ID, f.Kind, dash(f.VMName), dash(f.VMID), f.Message)
		}
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%d clusters, %d checked, %d skipped, %d with kubectl unreachable; %d findings\n",
		len(r.Clusters), checked, len(r.Clusters)-checked, unreachable, r.FindingCount())
	for _, c := range r.Clusters {
		switch {
		case !c.Checked:
			fmt.Fprintf(w, "  skipped: %s (%s, state %s)\n", c.Name, c.ID, c.State)
		case !c.KubectlReachable:
			fmt.Fprintf(w, "  kubectl unreachable: %s (%s): %s\n", c.Name, c.ID, strings.ReplaceAll(c.KubectlError, "_", " "))
		}
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
