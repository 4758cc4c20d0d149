package docs

import (
	"strings"
	"testing"
)

// TestImportsPointOneWay checks the rule of ARCHITECTURE.md's imports against go list: cmd →
// exporter → collector, notifier, config, state; nothing imports exporter or cmd but cmd; the
// collector package imports none of its adapters, nor notifier, config or state.
func TestImportsPointOneWay(t *testing.T) {
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(goList(t)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module+"/") {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
	if len(imports) == 0 {
		t.Fatal("go list named no package of the module")
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			under := func(p string) bool { return imp == p || strings.HasPrefix(imp, p+"/") }
			switch {
			case (under("exporter") || under("cmd")) && !strings.HasPrefix(pkg, "cmd/") && !strings.HasPrefix(pkg, "exporter") && !strings.HasPrefix(pkg, "test/"):
				t.Errorf("%s imports %s: only cmd and the tests may", pkg, imp)
			case pkg == "collector" && !under("internal"):
				t.Errorf("collector imports %s: the engine imports no adapter, notifier, config or state", imp)
			}
		}
	}
}
