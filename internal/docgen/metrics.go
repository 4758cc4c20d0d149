package docgen

import (
	"fmt"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// MetricsTable is the Markdown table of the families whose names start with prefix: name, type,
// labels and HELP, sorted by name.
func MetricsTable(families []*dto.MetricFamily, prefix string) string {
	var rows []string
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), prefix) {
			continue
		}
		seen := map[string]bool{}
		var labels []string
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if !seen[l.GetName()] {
					seen[l.GetName()] = true
					labels = append(labels, l.GetName())
				}
			}
		}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			labels = append(labels, "le")
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s |", f.GetName(), strings.ToLower(f.GetType().String()),
			strings.Join(labels, ", "), strings.ReplaceAll(f.GetHelp(), "|", `\|`)))
	}
	sort.Strings(rows)
	return "| metric | type | labels | help |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
}

// Replace puts generated between the markers <!-- generated: name --> and <!-- end: name --> of
// doc, which must hold them once.
func Replace(doc, name, generated string) (string, error) {
	begin, end := "<!-- generated: "+name+" -->\n", "<!-- end: "+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no markers %q ... %q", strings.TrimSpace(begin), end)
	}
	return doc[:i+len(begin)] + generated + doc[j:], nil
}
