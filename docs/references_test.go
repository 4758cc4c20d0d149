package docs

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/docgen"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

var update = flag.Bool("update", false, "rewrite the generated parts of the docs and the rules (make docs)")

// module is the path of this repository's module.
const module = "github.com/cks-drift-exporter/cks-drift-exporter"

// goList is what go list says each package of the module imports.
func goList(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return string(out)
}

// TestGeneratedReferences fails when the generated parts of metrics.md (from the metric
// families the exporter registers), configuration.md (from the configuration's Go types,
// their comments and config.Defaults), the kinds tables of README.md and how-it-works.md or the
// drift alerts of the rules (from collector.Declarations) or the import table of ARCHITECTURE.md
// (from go list) are stale; `make docs` rewrites them.
func TestGeneratedReferences(t *testing.T) {
	families, err := exporter.MetricFamilies()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := docgen.ConfigKeys("../config", reflect.TypeOf(config.Config{}), reflect.ValueOf(config.Defaults()))
	if err != nil {
		t.Error(err)
	}
	meaning := func(d collector.Declaration) string { return d.Meaning }
	when := func(d collector.Declaration) string { return d.When }
	advice := func(d collector.Declaration) string { return d.Advice }
	causes := func(d collector.Declaration) string {
		if len(d.Causes.Types) == 0 {
			return "none"
		}
		on := "its VM"
		switch d.Causes.On {
		case collector.CauseOnRule:
			on = "its deleted rule, delivered by a webhook"
		case collector.CauseOnCluster:
			on = "its cluster"
		}
		return "`" + strings.Join(d.Causes.Types, "`, `") + "` on " + on
	}
	refs := []struct {
		file, name, generated string
		replace               func(doc, name, generated string) (string, error)
	}{
		{"metrics.md", "metrics", docgen.MetricsTable(families, "cks_drift_"), docgen.Replace},
		{"configuration.md", "keys", docgen.ConfigTable(keys), docgen.Replace},
		{"../README.md", "kinds", docgen.KindsTable("what it means", meaning), docgen.Replace},
		{"how-it-works.md", "kinds", docgen.KindsTable("when", when), docgen.Replace},
		{"how-it-works.md", "causes", docgen.KindsTable("the events that explain it", causes), docgen.Replace},
		{"notifications.md", "advice", docgen.KindsTable("the alert's last sentence", advice), docgen.Replace},
		{"ARCHITECTURE.md", "imports", docgen.ImportsTable(goList(t), module, "internal/testkit", "test/", "tools/", "docs", "examples"), docgen.Replace},
	}
	for name, part := range docgen.RuleParts() {
		refs = append(refs, struct {
			file, name, generated string
			replace               func(doc, name, generated string) (string, error)
		}{"../rules/" + rules.RulesFile, name, part, docgen.ReplaceLines})
	}
	for _, ref := range refs {
		b, err := os.ReadFile(ref.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.replace(string(b), ref.name, ref.generated)
		if err != nil {
			t.Fatalf("%s: %v", ref.file, err)
		}
		if *update {
			if err := os.WriteFile(ref.file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("%s is stale: run make docs (-want +got):\n%s", ref.file, diff)
		}
	}
	// The inline lists of kinds (<!-- kinds: ... -->) of every document.
	docs, _ := filepath.Glob("*.md")
	for _, file := range append(docs, "../README.md", "../CONTRIBUTING.md") {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := docgen.ReplaceKindLists(string(b))
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if *update {
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("%s: a list of kinds is stale: run make docs (-want +got):\n%s", file, diff)
		}
	}
}
