package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Names and messages come from CloudStack accounts and from control nodes, so anyone who may
// create a cluster or a VM chooses them. Printed raw, an escape sequence in a name could clear
// an operator's terminal or forge a table row, and a bidirectional override could make one name
// read as another. Before a report is shown, such characters become visible escapes.

// UnsafeRune reports whether r must not reach a terminal or a page raw: C0 and C1 control
// characters, DEL, and the bidirectional formatting characters.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x200e && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == utf8.RuneError:
		return true
	}
	return false
}

// Escape returns s with every unsafe character written as a Go escape (\x1b, \u202e); a
// backslash is doubled so that an escape cannot be forged. Invalid UTF-8 bytes become \xNN.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if UnsafeRune(r) || r == '\\' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x80 && UnsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Printable returns a copy of the report whose names and messages carry no unsafe character,
// for the --once table and the status page.
func (r Report) Printable() Report {
	out := r
	out.Cycle.Error = Escape(r.Cycle.Error)
	out.Clusters = make([]ClusterReport, len(r.Clusters))
	for i, c := range r.Clusters {
		c.ID, c.Name, c.State, c.ClusterType = Escape(c.ID), Escape(c.Name), Escape(c.State), Escape(c.ClusterType)
		c.Zone, c.Account, c.Domain, c.Project = Escape(c.Zone), Escape(c.Account), Escape(c.Domain), Escape(c.Project)
		c.NodesError, c.SkipReason = Escape(c.NodesError), Escape(c.SkipReason)
		findings := make([]FindingReport, len(c.Findings))
		for j, f := range c.Findings {
			f.VMID, f.VMName, f.Message = Escape(f.VMID), Escape(f.VMName), Escape(f.Message)
			findings[j] = f
		}
		c.Findings = findings
		if c.Resolved != nil {
			resolved := make([]ResolvedReport, len(c.Resolved))
			for j, f := range c.Resolved {
				f.VMID, f.VMName, f.Message = Escape(f.VMID), Escape(f.VMName), Escape(f.Message)
				resolved[j] = f
			}
			c.Resolved = resolved
		}
		accepted := make([]collector.AcceptedFinding, len(c.Accepted))
		for j, a := range c.Accepted {
			a.VMID, a.VMName, a.Message, a.Reason = Escape(a.VMID), Escape(a.VMName), Escape(a.Message), Escape(a.Reason)
			accepted[j] = a
		}
		c.Accepted = accepted
		out.Clusters[i] = c
	}
	return out
}

// jsonEscaper passes JSON through with the unsafe characters that encoding/json leaves raw
// (DEL, C1 controls, bidirectional formatting) written as \u escapes: the JSON means the same,
// and a terminal that shows it runs nothing. encoding/json already escapes the rest, and these
// characters can only occur inside strings, so a rune-wise rewrite is safe.
type jsonEscaper struct{ w io.Writer }

func (j jsonEscaper) Write(p []byte) (int, error) {
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if r != utf8.RuneError && r >= 0x7f && UnsafeRune(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.Write(p[i : i+size])
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
