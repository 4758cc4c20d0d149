package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// TestCostTable: the requests per cycle that docs/operations.md's cost table and the README give
// for the benchmark's worlds of 50, 1,000 and 10,000 clusters are listPages of those worlds (which
// TestRequestsPerCycle checks against the exporter's own requests), in total and by command.
func TestCostTable(t *testing.T) {
	t.Parallel()
	o := defaultOptions()
	want := make(map[int]map[string]int)
	for _, n := range []int{50, 1000, 10000} {
		want[n] = listPages(o, world.CountsOf(o.spec(n)))
	}

	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := costRows(t, string(raw))
	if len(rows) != len(want) {
		t.Fatalf("docs/operations.md's cost table has rows for %d world sizes, want %d", len(rows), len(want))
	}
	for n, pages := range want {
		row, ok := rows[n]
		if !ok {
			t.Errorf("docs/operations.md's cost table has no row for %d clusters", n)
			continue
		}
		if total := sum(pages); row["requests per cycle"] != strconv.Itoa(total) {
			t.Errorf("%d clusters: the table says %s requests per cycle, the world's pages are %d: %v", n, row["requests per cycle"], total, pages)
		}
		for col, cell := range row {
			cmds, ok := strings.CutPrefix(col, "of which ")
			if !ok {
				continue
			}
			want := 0 // the column's commands, each in backquotes
			for _, cmd := range commandName.FindAllStringSubmatch(cmds, -1) {
				want += pages[cmd[1]]
			}
			if cell != strconv.Itoa(want) {
				t.Errorf("%d clusters: the table says %s of %s, the world's pages are %d", n, cell, cmds, want)
			}
		}
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sentence := fmt.Sprintf("a cycle is %d API requests at 50 clusters, %d at 1,000 and %d at 10,000",
		sum(want[50]), sum(want[1000]), sum(want[10000]))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), sentence) {
		t.Errorf("the README's cost does not say %q", sentence)
	}
}

// commandName is an API command in backquotes.
var commandName = regexp.MustCompile("`(list[A-Za-z]+)`")

// costRows reads the table of docs/operations.md whose header begins "| clusters | requests per
// cycle |": its cells by column header, by the number of clusters.
func costRows(t *testing.T, doc string) map[int]map[string]string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "| clusters | requests per cycle |") {
			start = i
		}
	}
	if start < 0 {
		t.Fatal("docs/operations.md has no cost table (| clusters | requests per cycle | ...)")
	}
	cells := func(l string) []string {
		f := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	header := cells(lines[start])
	out := make(map[int]map[string]string)
	digits := regexp.MustCompile(`[^0-9]`)
	for _, l := range lines[start+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		row := make(map[string]string)
		for i, c := range cells(l) {
			if i < len(header) {
				row[header[i]] = digits.ReplaceAllString(c, "")
			}
		}
		n, err := strconv.Atoi(row["clusters"])
		if err != nil {
			t.Fatalf("a row of the cost table: %q", l)
		}
		out[n] = row
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
