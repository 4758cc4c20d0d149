package promqlcheck

// The default rules of grafana/dashboard-linter (lint/rules.go, NewRuleSet), reimplemented
// from its source because the module proxy refuses the linter's module. Each function below is
// one rule, named as the linter names it, with the linter's conditions; where this one differs
// the comment says so. Not reimplemented: target-logql-rule and target-logql-auto-rule, which
// only look at Loki queries, and these dashboards have none.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// lintDashboard is the part of a dashboard the linter reads (its lint.Dashboard).
type lintDashboard struct {
	Title      string `json:"title"`
	Editable   bool   `json:"editable"`
	Templating struct {
		List []lintTemplate `json:"list"`
	} `json:"templating"`
	Rows []struct {
		Panels []lintPanel `json:"panels"`
	} `json:"rows"`
	Panels []lintPanel `json:"panels"`
}

type lintDatasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// uid returns a datasource's uid; the linter also accepts a plain string, the older form.
func uid(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ds lintDatasource
	_ = json.Unmarshal(raw, &ds)
	return ds.UID
}

type lintTemplate struct {
	Name       string          `json:"name"`
	Label      string          `json:"label"`
	Type       string          `json:"type"`
	Datasource json.RawMessage `json:"datasource"`
	Query      json.RawMessage `json:"query"`
	Multi      bool            `json:"multi"`
	AllValue   string          `json:"allValue"`
	Refresh    int             `json:"refresh"`
}

// query returns the variable's query, a string or an object with a query field.
func (t lintTemplate) query() string {
	var s string
	if json.Unmarshal(t.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(t.Query, &o)
	return o.Query
}

type lintPanel struct {
	ID          int             `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Type        string          `json:"type"`
	Datasource  json.RawMessage `json:"datasource"`
	Targets     []lintTarget    `json:"targets"`
	Options     struct {
		ReduceOptions struct {
			Fields string `json:"fields"`
		} `json:"reduceOptions"`
	} `json:"options"`
	FieldConfig struct {
		Defaults struct {
			Unit     string          `json:"unit"`
			Mappings json.RawMessage `json:"mappings"`
		} `json:"defaults"`
		Overrides []struct {
			Properties []struct {
				ID    string `json:"id"`
				Value any    `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
	Panels []lintPanel `json:"panels"`
}

type lintTarget struct {
	Expr    string `json:"expr"`
	PanelID int    `json:"panelId"`
}

// panels returns every panel, those of rows and collapsed rows included (GetPanels).
func (d lintDashboard) panels() []lintPanel {
	var out []lintPanel
	var walk func(ps []lintPanel)
	walk = func(ps []lintPanel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	for _, r := range d.Rows {
		walk(r.Panels)
	}
	walk(d.Panels)
	return out
}

func (d lintDashboard) template(name string) *lintTemplate {
	for i := range d.Templating.List {
		if d.Templating.List[i].Name == name {
			return &d.Templating.List[i]
		}
	}
	return nil
}

// prometheus reports whether the dashboard's first datasource variable is of Prometheus: the
// linter's PromQL rules only run then.
func (d lintDashboard) prometheus() bool {
	for _, t := range d.Templating.List {
		if t.Type == "datasource" {
			return t.query() == "prometheus"
		}
	}
	return false
}

// globals are the linter's sample values of Grafana's global variables (lint/variables.go).
var globals = map[string]string{
	"__rate_interval": "8869990787ms", "__interval": "4867856611ms", "__interval_ms": "7781188786",
	"__range_ms": "6737667980", "__range_s": "9397795485", "__range": "6069770749ms", "__auto": "12345ms",
}

var variableRE = regexp.MustCompile(`\$([[:word:]]+)|\$\{([^}]+)\}|\[\[([^\[\]]+)\]\]`)

// expand replaces the variables outside double-quoted strings with sample values, as the
// linter's expandVariables does: inside quotes "$job" stays, so a matcher's value is "$job".
// Unlike the linter it does not look at a variable's current value (these dashboards save
// none): a template variable becomes its own name, the linter's fallback.
func expand(expr string) string {
	parts := strings.Split(expr, `"`)
	for i := 0; i < len(parts); i += 2 {
		parts[i] = variableRE.ReplaceAllStringFunc(parts[i], func(m string) string {
			g := variableRE.FindStringSubmatch(m)
			name, _, _ := strings.Cut(g[1]+g[2]+g[3], ":")
			if v, ok := globals[name]; ok {
				return v
			}
			return name
		})
	}
	return strings.Join(parts, `"`)
}

func parsePromQL(expr string) (parser.Expr, error) {
	return parser.NewParser(parser.Options{}).ParseExpr(expand(expr))
}

// Panel types as the linter groups them.
var (
	withTitle   = []string{"stat", "singlestat", "graph", "table", "timeseries", "gauge"}
	withDSRule  = []string{"singlestat", "graph", "table", "timeseries"}
	withQueries = []string{"singlestat", "gauge", "table", "stat", "state-timeline", "timeseries"}
)

// lintRule is one rule: its linter name and what it finds in a dashboard.
type lintRule struct {
	name string
	fn   func(d lintDashboard) []string
}

func panelRule(name string, fn func(d lintDashboard, p lintPanel) []string) lintRule {
	return lintRule{name, func(d lintDashboard) []string {
		var out []string
		for _, p := range d.panels() {
			for _, msg := range fn(d, p) {
				out = append(out, fmt.Sprintf("panel %q: %s", p.Title, msg))
			}
		}
		return out
	}}
}

func targetRule(name string, fn func(d lintDashboard, p lintPanel, t lintTarget) []string) lintRule {
	return panelRule(name, func(d lintDashboard, p lintPanel) []string {
		var out []string
		for _, t := range p.Targets {
			out = append(out, fn(d, p, t)...)
		}
		return out
	})
}

// linterRules are the linter's default rules, in its order.
var linterRules = []lintRule{
	{"template-datasource-rule", func(d lintDashboard) []string {
		var ds []lintTemplate
		for _, t := range d.Templating.List {
			if strings.EqualFold(t.Type, "datasource") {
				ds = append(ds, t)
			}
		}
		if len(ds) == 0 {
			return []string{"does not have a templated data source"}
		}
		var out []string
		for _, t := range ds {
			q := t.query()
			names := []string{strings.ToLower(q) + "_datasource"}
			labels := []string{strings.ToUpper(q[:1]) + strings.ToLower(q[1:]) + " data source"}
			if len(ds) == 1 {
				names, labels = append(names, "datasource"), append(labels, "Data source")
			}
			// The label is a warning in the linter; here it fails too.
			if !slices.Contains(names, t.Name) || !slices.Contains(labels, t.Label) {
				out = append(out, fmt.Sprintf("data source variable %q labelled %q, want a name of %q and a label of %q", t.Name, t.Label, names, labels))
			}
		}
		return out
	}},
	{"template-job-rule", func(d lintDashboard) []string { return checkTemplate(d, "job") }},
	{"template-instance-rule", func(d lintDashboard) []string { return checkTemplate(d, "instance") }},
	{"template-label-promql-rule", func(d lintDashboard) []string {
		if !d.prometheus() {
			return nil
		}
		var out []string
		for _, t := range d.Templating.List {
			if t.Type != "query" {
				continue
			}
			tokens := regexp.MustCompile(`([a-z_]+)\((.+)\)`).FindStringSubmatch(t.query())
			switch {
			case tokens == nil:
				out = append(out, fmt.Sprintf("template %q: invalid query %q", t.Name, t.query()))
			case !slices.Contains([]string{"label_names", "label_values", "metrics", "query_result"}, tokens[1]):
				out = append(out, fmt.Sprintf("template %q: invalid function %q", t.Name, tokens[1]))
			default:
				// As the linter: the argument passes when the parser returns an expression,
				// even with an error (label_values' ", label" after the selector).
				if expr, err := parsePromQL(tokens[2]); expr == nil {
					out = append(out, fmt.Sprintf("template %q: %q: %v", t.Name, tokens[2], err))
				}
			}
		}
		return out
	}},
	{"template-on-time-change-reload-rule", func(d lintDashboard) []string {
		var out []string
		for _, t := range d.Templating.List {
			if t.Type == "query" && t.Refresh != 2 {
				out = append(out, fmt.Sprintf("variable %q: refresh %d, want 2 (on time range change)", t.Name, t.Refresh))
			}
		}
		return out
	}},
	panelRule("panel-datasource-rule", func(d lintDashboard, p lintPanel) []string {
		if !slices.Contains(withDSRule, p.Type) {
			return nil
		}
		var allowed []string
		for _, t := range d.Templating.List {
			if strings.EqualFold(t.Type, "datasource") {
				allowed = append(allowed, "$"+t.Name, "${"+t.Name+"}")
			}
		}
		if u := uid(p.Datasource); !slices.Contains(allowed, u) {
			return []string{fmt.Sprintf("does not use a templated datasource, uses %q", u)}
		}
		return nil
	}),
	panelRule("panel-title-description-rule", func(_ lintDashboard, p lintPanel) []string {
		if slices.Contains(withTitle, p.Type) && (p.Title == "" || p.Description == "") {
			return []string{"has no title or no description"}
		}
		return nil
	}),
	panelRule("panel-units-rule", func(_ lintDashboard, p lintPanel) []string {
		if !slices.Contains(withTitle, p.Type) || p.Type == "stat" && p.Options.ReduceOptions.Fields != "" {
			return nil
		}
		unit := ""
		for _, o := range p.FieldConfig.Overrides {
			for _, prop := range o.Properties {
				if prop.ID == "mappings" && prop.Value != nil {
					return nil
				}
				if prop.ID == "unit" {
					unit, _ = prop.Value.(string)
				}
			}
		}
		if m := p.FieldConfig.Defaults.Mappings; len(m) > 0 && string(m) != "null" {
			return nil // value mappings: the linter does not ask for a unit
		}
		if unit == "" {
			unit = p.FieldConfig.Defaults.Unit
		}
		if !validUnits[unit] {
			return []string{fmt.Sprintf("has no or an invalid unit %q", unit)}
		}
		return nil
	}),
	panelRule("panel-no-targets-rule", func(_ lintDashboard, p lintPanel) []string {
		if slices.Contains([]string{"stat", "singlestat", "graph", "table", "timeseries", "gauge"}, p.Type) && p.Targets == nil {
			return []string{"has no targets"}
		}
		return nil
	}),
	targetRule("target-promql-rule", func(d lintDashboard, p lintPanel, t lintTarget) []string {
		if !d.prometheus() || !slices.Contains(withQueries, p.Type) {
			return nil
		}
		if t.Expr == "" && t.PanelID > 0 && !slices.ContainsFunc(d.Panels, func(o lintPanel) bool { return o.ID == t.PanelID }) {
			return []string{"invalid panel reference in target"}
		}
		if _, err := parsePromQL(t.Expr); err != nil {
			return []string{fmt.Sprintf("invalid PromQL query %q: %v", t.Expr, err)}
		}
		return nil
	}),
	targetRule("target-rate-interval-rule", func(d lintDashboard, p lintPanel, t lintTarget) []string {
		if !d.prometheus() || !slices.Contains(withQueries, p.Type) {
			return nil
		}
		expr, err := parsePromQL(t.Expr)
		if err != nil {
			return nil // target-promql-rule
		}
		magic, _ := time.ParseDuration(globals["__rate_interval"])
		var out []string
		parser.Inspect(expr, func(node parser.Node, path []parser.Node) error {
			m, ok := node.(*parser.MatrixSelector)
			if !ok || m.Range == magic || len(path) == 0 {
				return nil
			}
			if call, ok := path[len(path)-1].(*parser.Call); !ok {
				out = append(out, fmt.Sprintf("%q: a range outside a function", t.Expr))
			} else if call.Func.Name == "rate" || call.Func.Name == "irate" {
				out = append(out, fmt.Sprintf("%q: %s should use $__rate_interval", t.Expr, call.Func.Name))
			}
			return nil
		})
		return out
	}),
	targetRule("target-job-rule", func(d lintDashboard, _ lintPanel, t lintTarget) []string { return checkMatcher(d, t, "job") }),
	targetRule("target-instance-rule", func(d lintDashboard, _ lintPanel, t lintTarget) []string { return checkMatcher(d, t, "instance") }),
	targetRule("target-counter-agg-rule", func(_ lintDashboard, _ lintPanel, t lintTarget) []string {
		expr, err := parsePromQL(t.Expr)
		if err != nil {
			return nil
		}
		var out []string
		parser.Inspect(expr, func(node parser.Node, path []parser.Node) error {
			// The linter tests the selector's text, which ends in _total only without
			// matchers; the metric's name is tested here, so x_total{job=~"$job"} counts too.
			vs, ok := node.(*parser.VectorSelector)
			if !ok || !strings.HasSuffix(vs.Name, "_total") {
				return nil
			}
			n := len(path)
			ok = n >= 2
			if ok {
				_, ok = path[n-1].(*parser.MatrixSelector)
			}
			if ok {
				call, isCall := path[n-2].(*parser.Call)
				ok = isCall && slices.Contains([]string{"rate", "irate", "increase"}, call.Func.Name)
			}
			if !ok {
				out = append(out, fmt.Sprintf("counter %s is not aggregated with rate, irate or increase", vs))
			}
			return nil
		})
		return out
	}),
	{"uneditable-dashboard", func(d lintDashboard) []string {
		if d.Editable {
			return []string{"is editable, it should be set to editable: false"}
		}
		return nil
	}},
}

// checkTemplate is the linter's check of the job and instance variables. Its label check is a
// warning in the linter; here it fails too.
func checkTemplate(d lintDashboard, name string) []string {
	if !d.prometheus() {
		return nil
	}
	t := d.template(name)
	if t == nil {
		return []string{"is missing the " + name + " template"}
	}
	var out []string
	if u := uid(t.Datasource); !slices.Contains([]string{"$datasource", "${datasource}", "$prometheus_datasource", "${prometheus_datasource}"}, u) {
		out = append(out, fmt.Sprintf("%s template should use datasource $datasource, is %q", name, u))
	}
	if t.Type != "query" {
		out = append(out, fmt.Sprintf("%s template should be a query, is %q", name, t.Type))
	}
	if label := strings.ToUpper(name[:1]) + name[1:]; t.Label != label {
		out = append(out, fmt.Sprintf("%s template should be labelled %q, is %q", name, label, t.Label))
	}
	if !t.Multi {
		out = append(out, name+" template should be a multi select")
	}
	if t.AllValue != ".+" {
		out = append(out, fmt.Sprintf("%s template allValue should be .+, is %q", name, t.AllValue))
	}
	return out
}

// checkMatcher: every selector of a Prometheus target has the matcher name=~"$name".
func checkMatcher(d lintDashboard, t lintTarget, name string) []string {
	if !d.prometheus() {
		return nil
	}
	expr, err := parsePromQL(t.Expr)
	if err != nil {
		return nil
	}
	var out []string
	for _, sel := range parser.ExtractSelectors(expr) {
		if !slices.ContainsFunc(sel, func(m *labels.Matcher) bool {
			return m.Name == name && m.Type == labels.MatchRegexp && m.Value == "$"+name
		}) {
			out = append(out, fmt.Sprintf("%q: a selector without %s=~\"$%s\"", t.Expr, name, name))
		}
	}
	return out
}

// lintFS runs every rule on every dashboard of fsys and returns the problems, each prefixed
// with the file and the rule.
func lintFS(fsys fs.FS) ([]string, error) {
	files, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		var d lintDashboard
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, r := range linterRules {
			for _, p := range r.fn(d) {
				out = append(out, fmt.Sprintf("%s: %s: %s", f, r.name, p))
			}
		}
	}
	return out, nil
}
