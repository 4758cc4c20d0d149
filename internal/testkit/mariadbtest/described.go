package mariadbtest

import (
	"embed"
	"fmt"
	"strings"
)

// described holds, per release, the tables and columns of CloudStack's schema that the exporter
// reads and that the rendered schema keeps, each cited to the line of that release's SQL that
// declares it (testdata/cloudstack/<release>.txt; the header of each file says what was read).
//
//go:embed testdata/cloudstack/*.txt
var described embed.FS

// DescribedReleases are the release lines whose schema is described, oldest first.
var DescribedReleases = []string{"4.14", "4.17", "4.19", "4.20", "4.21", "4.22"}

// Column is one line of a release's description.
type Column struct {
	Table, Name string
	// Seed marks a column the exporter does not read, kept in the rendered schema because the
	// seeding needs it (NOT NULL without a default) or to tell it from a column that is read.
	Seed bool
	// Cited are the file:line of the release's SQL that declare the column, then any that
	// rename it or its table.
	Cited []string
}

// Described returns the description of a release line's schema (DescribedReleases).
func Described(release string) ([]Column, error) {
	data, err := described.ReadFile("testdata/cloudstack/" + release + ".txt")
	if err != nil {
		return nil, fmt.Errorf("mariadbtest: no description of CloudStack %s: %w", release, err)
	}
	var cols []Column
	for i, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		table, name, ok := strings.Cut(fields[0], ".")
		if !ok || len(fields) < 2 {
			return nil, fmt.Errorf("mariadbtest: %s.txt line %d: want <table>.<column> <file>:<line>... [seed]", release, i+1)
		}
		c := Column{Table: table, Name: name, Cited: fields[1:]}
		if last := len(c.Cited) - 1; c.Cited[last] == "seed" {
			c.Seed, c.Cited = true, c.Cited[:last]
		}
		for _, cite := range c.Cited {
			if file, n, ok := strings.Cut(cite, ".sql:"); !ok || file == "" || n == "" {
				return nil, fmt.Errorf("mariadbtest: %s.txt line %d: %q is not a citation <file>.sql:<line>", release, i+1, cite)
			}
		}
		if len(c.Cited) == 0 {
			return nil, fmt.Errorf("mariadbtest: %s.txt line %d: %s.%s cites nothing", release, i+1, table, name)
		}
		cols = append(cols, c)
	}
	return cols, nil
}
