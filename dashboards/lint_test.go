package dashboards

import (
	"encoding/json"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
)

// The main rules of Grafana's dashboard-linter, plus this project's own. The rules that need
// PromQL parsed (only metrics the exporter emits, every selector filtered on $job, replicas
// never doubled) are in the rules/promqlcheck module, which has Prometheus's parser.

var wantDatasource = datasource{Type: "prometheus", UID: "${datasource}"}

func loadAll(t *testing.T) map[string]dashboard {
	t.Helper()
	ds, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cks-drift-overview.json", "cks-drift-cluster.json"} {
		if _, ok := ds[want]; !ok {
			t.Errorf("dashboard %s is missing", want)
		}
	}
	return ds
}

func TestDashboardIdentity(t *testing.T) {
	t.Parallel()
	uids := map[string]string{}
	for file, d := range loadAll(t) {
		if d.UID == "" || d.Title == "" {
			t.Errorf("%s: uid %q, title %q: both must be set", file, d.UID, d.Title)
		}
		if other, ok := uids[d.UID]; ok {
			t.Errorf("%s: uid %q already used by %s", file, d.UID, other)
		}
		uids[d.UID] = file
		if d.SchemaVersion < 36 || d.SchemaVersion > 41 {
			t.Errorf("%s: schemaVersion %d, want about 39", file, d.SchemaVersion)
		}
		ids := map[int]bool{}
		for _, p := range d.allPanels() {
			if ids[p.ID] {
				t.Errorf("%s: panel id %d used twice", file, p.ID)
			}
			ids[p.ID] = true
		}
	}
}

func TestTemplateVariables(t *testing.T) {
	t.Parallel()
	for file, d := range loadAll(t) {
		var hasDatasource bool
		for _, v := range d.Templating.List {
			switch v.Type {
			case "datasource":
				hasDatasource = hasDatasource || (v.Name == "datasource" && v.queryText() == "prometheus")
			case "query":
				if v.Datasource == nil || *v.Datasource != wantDatasource {
					t.Errorf("%s: variable %s: datasource %v, want %v", file, v.Name, v.Datasource, wantDatasource)
				}
				if v.IncludeAll && v.AllValue != ".+" {
					t.Errorf("%s: variable %s: allValue %q, want .+ (dashboard-linter), so that All matches every value", file, v.Name, v.AllValue)
				}
				if variableExpr(v.queryText()) == "" {
					t.Errorf("%s: variable %s: query %q is not label_values(metric, label) nor query_result(expr)", file, v.Name, v.queryText())
				}
			}
		}
		if !hasDatasource {
			t.Errorf("%s: no datasource variable named datasource of type datasource with query prometheus", file)
		}
	}
}

func TestPanels(t *testing.T) {
	t.Parallel()
	for file, d := range loadAll(t) {
		for _, p := range d.allPanels() {
			if strings.TrimSpace(p.Title) == "" {
				t.Errorf("%s: panel %d has no title", file, p.ID)
			}
			if p.Type == "row" {
				continue
			}
			if p.Datasource == nil || *p.Datasource != wantDatasource {
				t.Errorf("%s: panel %q: datasource %v, want %v", file, p.Title, p.Datasource, wantDatasource)
			}
			if p.FieldConfig.Defaults.Unit == "" {
				t.Errorf("%s: panel %q has no unit", file, p.Title)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no queries", file, p.Title)
			}
			for _, tg := range p.Targets {
				if tg.Datasource != nil && *tg.Datasource != wantDatasource {
					t.Errorf("%s: panel %q target %s: datasource %v, want %v", file, p.Title, tg.RefID, tg.Datasource, wantDatasource)
				}
				if strings.TrimSpace(tg.Expr) == "" {
					t.Errorf("%s: panel %q target %s has no expr", file, p.Title, tg.RefID)
				}
				if p.Type == "table" && (!tg.Instant || tg.Format != "table" || len(p.Transformations) == 0) {
					t.Errorf("%s: table %q: want instant queries in table format and transformations", file, p.Title)
				}
			}
		}
	}
}

// TestNoLiteralDatasourceUID walks the raw JSON, so a datasource anywhere (an annotation, a
// panel inside a row, a target) must name the variable rather than one Grafana's UID.
func TestNoLiteralDatasourceUID(t *testing.T) {
	t.Parallel()
	files, _ := fs.Glob(FS, "*.json")
	for _, f := range files {
		data, _ := fs.ReadFile(FS, f)
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var walk func(v any, path string)
		walk = func(v any, path string) {
			switch v := v.(type) {
			case map[string]any:
				if ds, ok := v["datasource"].(map[string]any); ok {
					if uid, _ := ds["uid"].(string); !strings.HasPrefix(uid, "$") {
						t.Errorf("%s: %s.datasource.uid is the literal %q", f, path, uid)
					}
				}
				if ds, ok := v["datasource"].(string); ok && !strings.HasPrefix(ds, "$") {
					t.Errorf("%s: %s.datasource is the literal %q", f, path, ds)
				}
				for k, c := range v {
					walk(c, path+"."+k)
				}
			case []any:
				for _, c := range v {
					walk(c, path+"[]")
				}
			}
		}
		walk(doc, "")
	}
}

func TestQueries(t *testing.T) {
	t.Parallel()
	for file, d := range loadAll(t) {
		perCluster := slices.ContainsFunc(d.Templating.List, func(v variable) bool { return v.Name == "cluster" })
		for _, p := range d.allPanels() {
			for _, tg := range p.Targets {
				if perCluster && strings.Contains(tg.Expr, "cluster_id") && !strings.Contains(tg.Expr, `cluster_id=~"$cluster"`) {
					t.Errorf("%s: panel %q: a per-cluster query without cluster_id=~\"$cluster\"", file, p.Title)
				}
			}
		}
	}
}

func TestQueriesSubstitutes(t *testing.T) {
	t.Parallel()
	all, err := Queries()
	if err != nil {
		t.Fatal(err)
	}
	given, err := QueriesWith(map[string]string{"cluster": "cafe0000-0000-4000-8000-00000000000b"})
	if err != nil {
		t.Fatal(err)
	}
	var sawCluster bool
	for file, exprs := range all {
		if len(exprs) == 0 || len(exprs) != len(given[file]) {
			t.Errorf("%s: %d queries, %d with a given value", file, len(exprs), len(given[file]))
		}
		for i, q := range exprs {
			if variableRE.MatchString(q) {
				t.Errorf("%s: variable left in %q", file, q)
			}
			sawCluster = sawCluster || strings.Contains(given[file][i], `cluster_id=~"cafe0000-0000-4000-8000-00000000000b"`)
		}
	}
	if !sawCluster {
		t.Error(`no query has cluster_id=~"cafe0000-0000-4000-8000-00000000000b" after QueriesWith(cluster: that id)`)
	}
	if _, err := substitute(`up{x="$nope"}`, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("substitute of an unknown variable: %v, want an error naming it", err)
	}
	if got, _ := substitute(`label_replace(up, "a", "$1", "b", "(.*)")[$__rate_interval]`, nil); !strings.Contains(got, `"$1"`) || !strings.Contains(got, "[5m]") {
		t.Errorf("substitute = %q, want $1 kept and $__rate_interval replaced", got)
	}
}

// TestDocsDescribeEveryPanel keeps docs/alerting.md, which describes the panels, in step.
func TestDocsDescribeEveryPanel(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/alerting.md")
	if err != nil {
		t.Fatal(err)
	}
	for file, d := range loadAll(t) {
		for _, p := range d.allPanels() {
			if p.Type != "row" && !strings.Contains(string(doc), "**"+p.Title+"**") {
				t.Errorf("docs/alerting.md does not describe panel %q of %s", p.Title, file)
			}
		}
	}
}
