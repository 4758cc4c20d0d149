package exporter

import (
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

// unsafeRune reports whether r must not reach a terminal or a page raw: C0 and C1 control
// characters, DEL, and the bidirectional formatting characters.
func unsafeRune(r rune) bool {
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

// printable returns s with every unsafe character written as a Go escape (\x1b, \u202e); a
// backslash is doubled so that an escape cannot be forged. Invalid UTF-8 bytes become \xNN.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) || r == '\\' {
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
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
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
	out.Cycle.Error = printable(r.Cycle.Error)
	out.Clusters = make([]ClusterReport, len(r.Clusters))
	for i, c := range r.Clusters {
		c.ID, c.Name, c.State, c.ClusterType = printable(c.ID), printable(c.Name), printable(c.State), printable(c.ClusterType)
		c.Zone, c.Account, c.Domain, c.Project = printable(c.Zone), printable(c.Account), printable(c.Domain), printable(c.Project)
		c.KubectlError = printable(c.KubectlError)
		findings := make([]collector.Finding, len(c.Findings))
		for j, f := range c.Findings {
			f.VMID, f.VMName, f.Message = printable(f.VMID), printable(f.VMName), printable(f.Message)
			findings[j] = f
		}
		c.Findings = findings
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
		if r != utf8.RuneError && r >= 0x7f && unsafeRune(r) {
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
