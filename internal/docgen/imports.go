package docgen

import (
	"fmt"
	"sort"
	"strings"
)

// ImportsTable is the Markdown table of which packages of the module each package imports, from
// the lines of `go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...`: the module's own
// packages only, without the module path, leaving out the packages whose path starts with one
// of skip (test helpers, benchmarks, tools).
func ImportsTable(golist, module string, skip ...string) string {
	own := func(p string) (string, bool) {
		if p != module && !strings.HasPrefix(p, module+"/") {
			return "", false
		}
		p = strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		for _, s := range skip {
			if strings.HasPrefix(p, s) {
				return "", false
			}
		}
		return p, p != ""
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(golist), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, ok := own(fields[0])
		if !ok {
			continue
		}
		var imports []string
		for _, imp := range fields[1:] {
			if p, ok := own(imp); ok {
				imports = append(imports, "`"+p+"`")
			}
		}
		sort.Strings(imports)
		rows = append(rows, fmt.Sprintf("| `%s` | %s |", pkg, strings.Join(imports, ", ")))
	}
	sort.Strings(rows)
	return "| package | imports (of this module) |\n|---|---|\n" + strings.Join(rows, "\n") + "\n"
}
