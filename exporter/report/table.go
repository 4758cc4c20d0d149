package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Output formats of --once.
const (
	FormatTable = "table" // one short line per finding, columns capped
	FormatWide  = "wide"  // every column in full, with the message
	FormatJSON  = "json"  // the report, as /findings serves it
)

// Column caps of the table format: a cluster or VM name can be up to 255 characters in
// CloudStack, and one long name must not push every row of a terminal off the screen. A uuid is
// 36 characters, so ids are never cut.
const (
	MaxClusterColumn = 32
	maxVMColumn      = 40
	maxIDColumn      = 36
)

// MaxTableWidth is the widest line of the table format: the capped columns, the longest kind and
// the gaps between them.
const MaxTableWidth = MaxClusterColumn + len("mapped_vm_expunged") + maxVMColumn + maxIDColumn + 3*2

// WriteTable prints one line per finding, then a summary, then the clusters that were skipped or
// whose nodes could not be listed. Names are printed with their control characters escaped.
func WriteTable(w io.Writer, report Report, wide bool) {
	r := report.Printable()
	if !r.Cycle.Success {
		fmt.Fprintf(w, "The check could not run: %s\n", r.Cycle.Error)
		return
	}
	if r.Summary.Findings > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		if wide {
			fmt.Fprintln(tw, "CLUSTER\tCLUSTER ID\tKIND\tVM NAME\tVM ID\tMESSAGE")
		} else {
			fmt.Fprintln(tw, "CLUSTER\tKIND\tVM NAME\tVM ID")
		}
		for _, c := range r.Clusters {
			for _, f := range c.Findings {
				if wide {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.ID, f.Kind, dash(f.VMName), dash(f.VMID), f.Message)
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", CapWidth(c.Name, MaxClusterColumn), f.Kind,
					CapWidth(dash(f.VMName), maxVMColumn), CapWidth(dash(f.VMID), maxIDColumn))
			}
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, summaryLine(r.Summary))
	for _, c := range r.Clusters {
		switch {
		case !c.Checked:
			fmt.Fprintf(w, "  skipped: %s (%s, state %s)\n", c.Name, c.ID, c.State)
		case !c.NodesReachable:
			fmt.Fprintf(w, "  kubectl unreachable: %s (%s): %s\n", c.Name, c.ID, strings.ReplaceAll(c.NodesError, "_", " "))
		}
	}
	if r.Summary.Findings > 0 && !wide {
		fmt.Fprintln(w, "The messages are in --once.format=wide and --once.format=json.")
	}
}

// summaryLine counts the clusters and findings of a cycle in one sentence.
func summaryLine(s Summary) string {
	var b strings.Builder
	// A skipped cluster has findings too (those it had, kept, and stuck_in_operation): the
	// clusters with findings are counted among all clusters, not among the checked ones.
	if s.Findings == 0 {
		fmt.Fprintf(&b, "No drift found in %s", plural(s.Checked, "cluster"))
	} else {
		fmt.Fprintf(&b, "%s in %s of %d:", plural(s.Findings, "finding"), plural(s.ClustersWithFindings, "cluster"), s.Clusters)
		sep := " "
		for _, k := range collector.Kinds {
			if n := s.ByKind[k]; n > 0 {
				fmt.Fprintf(&b, "%s%s %d", sep, k, n)
				sep = ", "
			}
		}
	}
	if s.Findings == 0 {
		fmt.Fprintf(&b, "; %d skipped, %d with kubectl unreachable (%s in all)", s.Skipped, s.Unreachable, plural(s.Clusters, "cluster"))
	} else {
		fmt.Fprintf(&b, "; %d checked, %d skipped, %d with kubectl unreachable", s.Checked, s.Skipped, s.Unreachable)
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// CapWidth cuts s to at most n characters, marking the cut with an ellipsis.
func CapWidth(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
