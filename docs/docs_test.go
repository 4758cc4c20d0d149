// Package docs holds the project's documentation; its test keeps the documents true to the tree.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	tests, dirs := goTests(t, root), topDirs(t, root)
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
				if !tests[tm[1]] {
					t.Errorf("%s names the test %s, which does not exist", doc, tm[1])
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

// goTests returns the names of the Go tests in the repository.
func goTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := make(map[string]bool)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// topDirs returns the top-level directories of the repository.
func topDirs(t *testing.T, root string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out[e.Name()] = true
		}
	}
	return out
}
