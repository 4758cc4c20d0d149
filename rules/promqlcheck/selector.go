package promqlcheck

import (
	"slices"
	"sort"
)

// Matcher is one label matcher of a selector, with its value unquoted.
type Matcher struct {
	Name, Op, Value string
}

// Selector is one vector selector of an expression. Within names the functions and
// aggregations around it, outermost first, so a lint can tell whether a series is aggregated.
type Selector struct {
	Metric   string // empty when the selector names no metric ({job="x"})
	Matchers []Matcher
	Within   []string
}

// Matcher returns the selector's matcher on label name, if it has one.
func (s Selector) Matcher(name string) (Matcher, bool) {
	for _, m := range s.Matchers {
		if m.Name == name {
			return m, true
		}
	}
	return Matcher{}, false
}

// Metrics returns the sorted, distinct metric names that expr reads.
func Metrics(expr string) ([]string, error) {
	sels, err := Parse(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range sels {
		if s.Metric != "" && !slices.Contains(names, s.Metric) {
			names = append(names, s.Metric)
		}
	}
	sort.Strings(names)
	return names, nil
}
