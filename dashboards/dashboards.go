// Package dashboards holds the Grafana dashboards of the exporter, embedded so that tests and
// tools can read them, and lists their queries for tests that run them against Prometheus.
package dashboards

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// FS holds the dashboards, one JSON file each.
//
//go:embed *.json
var FS embed.FS

// builtins are Grafana's own variables with values that suit a 1m scrape interval.
var builtins = map[string]string{
	"__rate_interval": "5m",
	"__interval":      "1m",
	"__range":         "1h",
	"__range_s":       "3600",
}

// variableRE matches $name, ${name}, ${name:format} and [[name]]; $1 (a label_replace
// reference) is not a variable.
var variableRE = regexp.MustCompile(`\$([A-Za-z_]\w*)|\$\{([A-Za-z_]\w*)(?::\w+)?\}|\[\[([A-Za-z_]\w*)\]\]`)

// labelValuesRE matches the query of a variable that lists the values of a label of a metric,
// or (query_result) the series of an expression, from which a regex picks a value and a text:
// the cluster variable is keyed by id and shown by name.
var labelValuesRE = regexp.MustCompile(`^\s*(?:label_values\(\s*(.+?)\s*,\s*\w+\s*\)|query_result\(\s*(.+?)\s*\))\s*$`)

// variableExpr returns the PromQL expression of a variable's query, "" if it has none.
func variableExpr(query string) string {
	m := labelValuesRE.FindStringSubmatch(query)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

type dashboard struct {
	UID           string `json:"uid"`
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Datasource *datasource     `json:"datasource"`
	IncludeAll bool            `json:"includeAll"`
	AllValue   string          `json:"allValue"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID          int         `json:"id"`
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Datasource  *datasource `json:"datasource"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets         []target          `json:"targets"`
	Transformations []json.RawMessage `json:"transformations"`
	Panels          []panel           `json:"panels"` // of a collapsed row
}

type target struct {
	RefID      string      `json:"refId"`
	Expr       string      `json:"expr"`
	Datasource *datasource `json:"datasource"`
	Instant    bool        `json:"instant"`
	Format     string      `json:"format"`
}

// queryText returns the query of a variable, which Grafana stores either as a string or as an
// object with a query field.
func (v variable) queryText() string {
	var s string
	if json.Unmarshal(v.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.Query, &o) == nil {
		return o.Query
	}
	return ""
}

// allPanels returns the panels of d in order, those inside rows included.
func (d dashboard) allPanels() []panel {
	var out []panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// load reads every embedded dashboard, keyed by file name.
func load() (map[string]dashboard, error) {
	files, err := fs.Glob(FS, "*.json")
	if err != nil {
		return nil, err
	}
	out := make(map[string]dashboard, len(files))
	for _, f := range files {
		data, err := fs.ReadFile(FS, f)
		if err != nil {
			return nil, err
		}
		var d dashboard
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[f] = d
	}
	return out, nil
}

// Queries returns, per dashboard file, the PromQL of every panel target in panel order and,
// for each label_values variable, its series selector, with every template variable replaced
// by the regular expression .* (the value of "All") and Grafana's interval variables by fixed
// durations, so that an end-to-end test can run each query against a real Prometheus.
func Queries() (map[string][]string, error) {
	return QueriesWith(nil)
}

// QueriesWith is Queries with some variables given a value, such as {"cluster": "prod"}. A
// value is matched literally: it is escaped as a regular expression inside a PromQL string.
func QueriesWith(values map[string]string) (map[string][]string, error) {
	qs, err := Expressions(values)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string)
	for _, q := range qs {
		out[q.File] = append(out[q.File], q.Expr)
	}
	return out, nil
}

// Query is one PromQL expression of a dashboard: a panel target's, or the series selector of a
// label_values variable.
type Query struct {
	File     string
	Panel    string // the panel's title; empty for a variable's query
	Variable string // the variable's name; empty for a panel's query
	Expr     string // with the template variables substituted
}

// Expressions returns the queries of QueriesWith with where each comes from, dashboard by
// dashboard in file order, the variables' queries first, then the panels' in panel order.
func Expressions(values map[string]string) ([]Query, error) {
	dashboards, err := load()
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(dashboards))
	for file := range dashboards {
		files = append(files, file)
	}
	sort.Strings(files)
	var out []Query
	for _, file := range files {
		d := dashboards[file]
		vars := map[string]string{}
		for _, v := range d.Templating.List {
			if v.Type == "query" || v.Type == "custom" || v.Type == "textbox" {
				vars[v.Name] = ".*"
			}
		}
		for k, v := range values {
			vars[k] = strings.ReplaceAll(regexp.QuoteMeta(v), `\`, `\\`)
		}
		var qs []Query
		for _, v := range d.Templating.List {
			if expr := variableExpr(v.queryText()); v.Type == "query" && expr != "" {
				qs = append(qs, Query{File: file, Variable: v.Name, Expr: expr})
			}
		}
		for _, p := range d.allPanels() {
			for _, t := range p.Targets {
				qs = append(qs, Query{File: file, Panel: p.Title, Expr: t.Expr})
			}
		}
		for i := range qs {
			if qs[i].Expr, err = substitute(qs[i].Expr, vars); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
		out = append(out, qs...)
	}
	return out, nil
}

// substitute replaces the variables in expr; a variable that is neither a template variable
// of the dashboard nor a built-in one is an error.
func substitute(expr string, vars map[string]string) (string, error) {
	var unknown []string
	s := variableRE.ReplaceAllStringFunc(expr, func(m string) string {
		g := variableRE.FindStringSubmatch(m)
		name := g[1] + g[2] + g[3]
		if v, ok := vars[name]; ok {
			return v
		}
		if v, ok := builtins[name]; ok {
			return v
		}
		unknown = append(unknown, name)
		return m
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", fmt.Errorf("query %q uses unknown variables %s", expr, strings.Join(unknown, ", "))
	}
	return s, nil
}
