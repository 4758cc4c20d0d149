package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tableRow is a row of the package table in ARCHITECTURE.md: its first cell, code spans of
// package paths separated by commas.
var tableRow = regexp.MustCompile("^\\| (`[^|]+`) \\|")

// TestArchitectureNamesEveryPackage fails when a Go package of the main module is missing from
// the package table of ARCHITECTURE.md, or the table names a package that is not there. A row
// `internal/testkit/...` covers every package below it.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	named, prefixes := architectureTable(t)
	for _, pkg := range goPackages(t, root) {
		covered := named[pkg]
		for _, p := range prefixes {
			covered = covered || strings.HasPrefix(pkg, p+"/")
		}
		if !covered {
			t.Errorf("ARCHITECTURE.md's package table does not name the package %s", pkg)
		}
	}
	for pkg := range named {
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			t.Errorf("ARCHITECTURE.md's package table names %s, which is not in the repository", pkg)
		}
	}
}

// TestBinaryImportsNoFake fails when the exporter's binary links a fake or a test helper.
func TestBinaryImportsNoFake(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "../cmd/cks-drift-exporter").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "/internal/testkit/") || strings.HasSuffix(dep, "test") && strings.Contains(dep, "cks-drift-exporter/") {
			t.Errorf("the exporter's binary imports %s", dep)
		}
	}
}

func architectureTable(t *testing.T) (named map[string]bool, prefixes []string) {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	named = map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, span := range codeSpan.FindAllStringSubmatch(m[1], -1) {
			switch p := span[1]; {
			case strings.HasSuffix(p, "/..."):
				prefixes = append(prefixes, strings.TrimSuffix(p, "/..."))
			case strings.HasSuffix(p, "/"):
				// a folder that is no package of the main module, e.g. tools/
			default:
				named[p] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return named, prefixes
}

// goPackages lists the directories of the main module that hold Go files other than tests,
// leaving out nested modules (a go.mod of their own) and testdata.
func goPackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "build" || name == "dist") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(rel))
			if len(pkgs) == 0 || pkgs[len(pkgs)-1] != dir {
				pkgs = append(pkgs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
