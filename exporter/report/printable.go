package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// Names and messages come from CloudStack accounts and from control nodes, so anyone who may
// create a cluster or a VM chooses them. Before a report is shown, every unsafe character in
// them becomes a visible, recoverable escape (safetext.Escape).

// Printable returns a copy of the report whose names and messages carry no unsafe character,
// for the --once table and the status page.
func (r Report) Printable() Report {
	out := r
	out.Cycle.Error = safetext.Escape(r.Cycle.Error)
	out.Clusters = make([]ClusterReport, len(r.Clusters))
	for i, c := range r.Clusters {
		c.ID, c.Name, c.State, c.ClusterType = safetext.Escape(c.ID), safetext.Escape(c.Name), safetext.Escape(c.State), safetext.Escape(c.ClusterType)
		c.Zone, c.Account, c.Domain, c.Project = safetext.Escape(c.Zone), safetext.Escape(c.Account), safetext.Escape(c.Domain), safetext.Escape(c.Project)
		c.NodesError, c.SkipReason = safetext.Escape(c.NodesError), safetext.Escape(c.SkipReason)
		findings := make([]FindingReport, len(c.Findings))
		for j, f := range c.Findings {
			f.VMID, f.VMName, f.Message = safetext.Escape(f.VMID), safetext.Escape(f.VMName), safetext.Escape(f.Message)
			f.Cause = printableCause(f.Cause)
			findings[j] = f
		}
		c.Findings = findings
		if c.Resolved != nil {
			resolved := make([]ResolvedReport, len(c.Resolved))
			for j, f := range c.Resolved {
				f.VMID, f.VMName, f.Message = safetext.Escape(f.VMID), safetext.Escape(f.VMName), safetext.Escape(f.Message)
				resolved[j] = f
			}
			c.Resolved = resolved
		}
		accepted := make([]collector.AcceptedFinding, len(c.Accepted))
		for j, a := range c.Accepted {
			a.VMID, a.VMName, a.Message, a.Reason = safetext.Escape(a.VMID), safetext.Escape(a.VMName), safetext.Escape(a.Message), safetext.Escape(a.Reason)
			accepted[j] = a
		}
		c.Accepted = accepted
		out.Clusters[i] = c
	}
	return out
}

// printableCause is c with its texts escaped: the description and the names are the event's, as
// the caller of the command wrote them.
func printableCause(c collector.Cause) collector.Cause {
	c.EventID, c.Type, c.Description = safetext.Escape(c.EventID), safetext.Escape(c.Type), safetext.Escape(c.Description)
	c.Username, c.Account = safetext.Escape(c.Username), safetext.Escape(c.Account)
	return c
}

// jsonEscaper passes JSON through with the unsafe characters (safetext.Unsafe) that encoding/json
// leaves raw (DEL, C1 controls, bidirectional and other format characters) written as \u
// escapes, a surrogate pair above the BMP: the JSON means the same, and a terminal that shows it
// runs nothing. encoding/json already escapes the rest and replaces invalid UTF-8, and these
// characters can only occur inside strings, so a rune-wise rewrite is safe.
type jsonEscaper struct{ w io.Writer }

func (j jsonEscaper) Write(p []byte) (int, error) {
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError || r < 0x7f || !safetext.Unsafe(r):
			b.Write(p[i : i+size])
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	if _, err := io.WriteString(j.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteJSON writes r as indented JSON that a terminal can show safely (see jsonEscaper).
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(jsonEscaper{w})
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
