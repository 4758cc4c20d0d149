// Package promqlcheck lists the vector selectors of a PromQL expression, parsed by Prometheus's
// own parser, so that tests can check the rules and dashboards against the metrics the exporter
// emits. It is a module of its own, used only by tests, so that the exporter's go.sum does not
// carry Prometheus's dependencies.
package promqlcheck

import (
	"slices"
	"sort"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
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

// Parse parses expr with Prometheus's parser (functions and syntax of the Prometheus release
// this module requires; experimental functions off, as a Prometheus server starts) and returns
// its vector selectors in the order they are written.
func Parse(expr string) ([]Selector, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var out []Selector
	parser.Inspect(e, func(node parser.Node, path []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		s := Selector{Metric: vs.Name}
		for _, m := range vs.LabelMatchers {
			if m.Name == model.MetricNameLabel {
				if s.Metric == "" && m.Type == labels.MatchEqual {
					s.Metric = m.Value
				}
				if vs.Name != "" {
					continue // the name written before the braces
				}
			}
			s.Matchers = append(s.Matchers, Matcher{Name: m.Name, Op: m.Type.String(), Value: m.Value})
		}
		if s.Metric != "" {
			s.Matchers = slices.DeleteFunc(s.Matchers, func(m Matcher) bool { return m.Name == model.MetricNameLabel })
		}
		for _, p := range path {
			switch p := p.(type) {
			case *parser.Call:
				s.Within = append(s.Within, p.Func.Name)
			case *parser.AggregateExpr:
				s.Within = append(s.Within, p.Op.String())
			}
		}
		out = append(out, s)
		return nil
	})
	return out, nil
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
