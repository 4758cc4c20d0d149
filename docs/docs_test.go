// Package docs holds the project's documentation; its test keeps the documents true to the tree.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var (
	// codeSpan is a Markdown code span.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// testName is a Go test, with an optional subtest after a slash.
	testName = regexp.MustCompile(`^(Test\w+)(/.*)?$`)
	// repoPath is a path of this repository: a top-level directory of it, then more.
	repoPath = regexp.MustCompile(`^[a-z][\w.-]*/[\w./-]*[\w]$`)
	// goIdent is an exported name of a package of this repository, such as collector/nodes/ssh.Lister.
	goIdent = regexp.MustCompile(`^([\w/]+)\.[A-Z]\w*(\.\w+)?$`)
)

// TestDocsNameWhatExists reads every code span of docs/*.md: a Go test it names must exist, and
// so must a path of this repository (a span that starts with one of its top-level directories).
func TestDocsNameWhatExists(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tests, allLiterals := goTests(t, root)
	dirs := topDirs(t, root)
	docs, err := filepath.Glob("*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no document: %v", err)
	}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range codeSpan.FindAllStringSubmatch(string(b), -1) {
			span := m[1]
			if tm := testName.FindStringSubmatch(span); tm != nil {
				file, ok := tests[tm[1]]
				switch {
				case !ok:
					t.Errorf("%s names the test %s, which does not exist", doc, tm[1])
				case tm[2] != "" && !namesSubtest(file.strings, tm[2][1:]) && !namesSubtest(allLiterals, tm[2][1:]):
					t.Errorf("%s names the subtest %s, which %s does not name", doc, span, file.path)
				}
				continue
			}
			first, _, _ := strings.Cut(span, "/")
			if !repoPath.MatchString(span) || !dirs[first] {
				continue
			}
			path := strings.TrimSuffix(span, "/")
			if m := goIdent.FindStringSubmatch(path); m != nil {
				path = m[1] // package/dir.Name: the package's directory
			}
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("%s names %s, which is not in the repository", doc, span)
			}
		}
	}
}

// testFile is the file that declares a Go test, and the string literals in it.
type testFile struct {
	path    string
	strings []string
}

// wildcard is how a document leaves out part of a subtest's name.
var wildcard = regexp.MustCompile(`\.\.\.|\*`)

// namesSubtest reports whether a subtest named as go test prints it (spaces made underscores,
// "..." or "*" for a part left out) is named by one of the string literals: the whole name, or
// each part of a name with a part left out. The literals are those of the test's file, or, for a
// name the test takes from elsewhere (a fake's mode), of every Go file.
func namesSubtest(literals []string, name string) bool {
	name = strings.ReplaceAll(name, "_", " ")
	parts := wildcard.Split(name, -1)
	for _, part := range parts {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		found := false
		for _, lit := range literals {
			lit = strings.ReplaceAll(lit, "_", " ")
			if lit == part || len(parts) > 1 && strings.Contains(lit, part) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// goTests returns the Go tests in the repository by name, with the file of each, and the string
// literals of every Go file.
func goTests(t *testing.T, root string) (map[string]testFile, []string) {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	literal := regexp.MustCompile("\"((?:[^\"\\\\\n]|\\\\.)*)\"|`([^`]*)`")
	out := make(map[string]testFile)
	var all []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f := testFile{path: strings.TrimPrefix(path, root+string(filepath.Separator))}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil && m[1] != "" {
				f.strings = append(f.strings, s)
			} else {
				f.strings = append(f.strings, m[1]+m[2])
			}
		}
		all = append(all, f.strings...)
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = f
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, all
}

// topDirs returns the top-level directories of the repository.
func topDirs(t *testing.T, root string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool)
	for _, e := range entries {
		// A build's output (/build/, /dist/ in .gitignore) is not in the repository, even where
		// a build left it: a document names what a build makes there, not what exists.
		built := slices.Contains(strings.Fields(string(ignore)), "/"+e.Name()+"/")
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !built {
			out[e.Name()] = true
		}
	}
	return out
}

// TestNamesSubtest: a subtest is found by its name as go test prints it, and a name no literal
// holds (a renamed or removed row of a scenario table) is not.
func TestNamesSubtest(t *testing.T) {
	literals := []string{"scenario 2: worker's map row deleted", "authentication failure (wrong key)", "count mismatch", "hang_command"}
	for name, want := range map[string]bool{
		"scenario_2:_worker's_map_row_deleted": true,
		"scenario_2:_worker's_map_row_removed": false,
		"authentication_failure_(...)":         true,
		"count_*":                              true,
		"hang_command":                         true,
		"scenario_9:_a_row_that_never_was":     false,
	} {
		if got := namesSubtest(literals, name); got != want {
			t.Errorf("namesSubtest(%q) = %v, want %v", name, got, want)
		}
	}
}
