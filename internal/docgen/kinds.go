package docgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// KindsTable is the Markdown table of every kind, as collector.Declarations declares them: its
// side, its name and, in the column named column, text (the README says what each means,
// docs/how-it-works.md when each is found).
func KindsTable(column string, text func(collector.Declaration) string) string {
	var b strings.Builder
	b.WriteString("| side | kind | " + column + " |\n|---|---|---|\n")
	for _, d := range collector.Declarations {
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", d.Side.Declaration().Title, d.Kind, strings.ReplaceAll(text(d), "|", `\|`))
	}
	return b.String()
}

// KindList is the kinds that keep says yes to, in their declared order, as Markdown code
// ("`a`, `b` or `c`"); the docs' lists of kinds are made by it (see KindLists).
func KindList(keep func(collector.Declaration) bool, last string) string {
	var names []string
	for _, d := range collector.Declarations {
		if keep(d) {
			names = append(names, "`"+string(d.Kind)+"`")
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last + " " + names[len(names)-1]
}

// alerts returns the Prometheus alerts that cover kinds, in the order of their first kind.
func alerts() []string {
	var out []string
	for _, d := range collector.Declarations {
		if !slices.Contains(out, d.Alert) {
			out = append(out, d.Alert)
		}
	}
	return out
}

// RuleParts returns the generated parts of rules/cks-drift.rules.yml by name: for each alert
// that covers kinds, "<alert> expr" (its expression, matching exactly its kinds, and its
// severity) and "<alert> description" (one branch per kind, and for a kind these rules do not
// know, from a newer exporter, a sentence that says so instead of describing another kind).
func RuleParts() map[string]string {
	parts := map[string]string{}
	for _, alert := range alerts() {
		var kinds []string
		severity := ""
		var desc strings.Builder
		desc.WriteString("          description: >-\n")
		for _, d := range collector.Declarations {
			if d.Alert != alert {
				continue
			}
			kinds = append(kinds, string(d.Kind))
			severity = d.Severity
			if len(kinds) == 1 {
				fmt.Fprintf(&desc, "            {{ if eq $labels.kind %q -}}\n", d.Kind)
			} else {
				fmt.Fprintf(&desc, "            {{- else if eq $labels.kind %q -}}\n", d.Kind)
			}
			fmt.Fprintf(&desc, "            %s\n", d.Rule)
		}
		desc.WriteString("            {{- else -}}\n" +
			"            A finding of kind {{ $labels.kind }} in Kubernetes cluster {{ $labels.cluster_name }}, which these rules do not describe (they are older than the exporter); its message is on the exporter's /findings page.\n" +
			"            {{- end }}\n")
		parts[alert+" expr"] = "        expr: |\n" +
			"          max by (cloud, cluster_id, cluster_name, kind, vm_id, vm_name) (\n" +
			"            cks_drift_finding{kind=~\"" + strings.Join(kinds, "|") + "\"}\n" +
			"          ) > 0\n" +
			"        labels:\n" +
			"          severity: " + severity + "\n"
		parts[alert+" description"] = desc.String()
	}
	return parts
}

// ReplaceLines puts generated between the line holding the marker "# generated: name" and the
// line holding "# end: name" (a YAML file's comments), which doc must hold once each.
func ReplaceLines(doc, name, generated string) (string, error) {
	begin, end := "# generated: "+name, "# end: "+name
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
		return "", fmt.Errorf("no markers %q ... %q, or more than one", begin, end)
	}
	i += strings.IndexByte(doc[i:], '\n') + 1
	j = strings.LastIndexByte(doc[:j], '\n') + 1
	return doc[:i] + generated + doc[j:], nil
}

// inlineList is an inline list of kinds in a Markdown document:
// <!-- kinds: <field>=<value> <last word> -->...<!-- end: kinds -->, where field is alert, side
// or subject.
var inlineList = regexp.MustCompile(`(<!-- kinds: (alert|side|subject)=(\S+) (\S+) -->)(.*?)(<!-- end: kinds -->)`)

// ReplaceKindLists makes every inline list of kinds of doc again from the declarations: the
// kinds whose alert, side or subject is the value, "`a`, `b` or `c`" with the last word given.
func ReplaceKindLists(doc string) (string, error) {
	var bad error
	out := inlineList.ReplaceAllStringFunc(doc, func(m string) string {
		g := inlineList.FindStringSubmatch(m)
		field, value, last := g[2], g[3], g[4]
		list := KindList(func(d collector.Declaration) bool {
			switch field {
			case "alert":
				return d.Alert == value
			case "side":
				return string(d.Side) == value
			default:
				return string(d.Subject) == value
			}
		}, last)
		if list == "" {
			bad = fmt.Errorf("%s names no declared kind", g[1])
		}
		return g[1] + list + g[6]
	})
	return out, bad
}
