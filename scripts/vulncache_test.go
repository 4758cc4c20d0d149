// Package scripts holds the tests of the repository's shell scripts.
package scripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeDB writes a complete database as indexdb lays it out, with marker in every file so that
// the test can tell whose copy was published.
func fakeDB(t *testing.T, dir, marker string) {
	t.Helper()
	for _, f := range []string{"index/db.json", "index/modules.json", "index/vulns.json", "ID/GO-2026-0001.json", "ID/GO-2026-0002.json"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"marker":"`+marker+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cache runs a function of vulncache.sh in bash and returns its output.
func cache(t *testing.T, call string) (string, error) {
	t.Helper()
	out, err := exec.Command("bash", "-c", `set -euo pipefail; . ./vulncache.sh; `+call).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestVulnCacheValid: only a complete database is valid; the entry that an interrupted copy of
// the old script left (ID/ without index/) is not.
func TestVulnCacheValid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove []string
		valid  bool
	}{
		{name: "complete", valid: true},
		{name: "ID without index", remove: []string{"index"}},
		{name: "no modules.json", remove: []string{"index/modules.json"}},
		{name: "no entries", remove: []string{"ID/GO-2026-0001.json", "ID/GO-2026-0002.json"}},
		{name: "no ID", remove: []string{"ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fakeDB(t, dir, "x")
			for _, r := range tc.remove {
				if err := os.RemoveAll(filepath.Join(dir, r)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := cache(t, "vulncache_valid "+dir)
			if (err == nil) != tc.valid {
				t.Fatalf("vulncache_valid: %v, want valid %v", err, tc.valid)
			}
		})
	}
}

// TestVulnCachePutConcurrently: eight runs publish their databases into one cache at once, over
// an entry left damaged: every run gets a complete database, the entry is one run's whole copy,
// and no temporary or damaged directory is left behind (only the lock file). The old script copied into one shared
// temporary name and moved it onto an existing entry, nesting it there.
func TestVulnCachePutConcurrently(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "cache")
	damaged := filepath.Join(cacheDir, "v1")
	fakeDB(t, damaged, "damaged")
	if err := os.RemoveAll(filepath.Join(damaged, "index")); err != nil {
		t.Fatal(err)
	}
	const runs = 8
	var wg sync.WaitGroup
	used := make([]string, runs)
	errs := make([]error, runs)
	for i := range runs {
		src := filepath.Join(root, fmt.Sprint("build-", i))
		fakeDB(t, src, fmt.Sprint("run-", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			used[i], errs[i] = cache(t, fmt.Sprintf("vulncache_put %s %s v1", src, cacheDir))
		}()
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v: %s", i, errs[i], used[i])
		}
		if _, err := cache(t, "vulncache_valid "+used[i]); err != nil {
			t.Errorf("run %d uses %s, which is not a complete database", i, used[i])
		}
	}
	if _, err := cache(t, "vulncache_valid "+damaged); err != nil {
		t.Fatalf("the cache entry is still damaged")
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".lock v1" {
		t.Fatalf("cache holds %q, want only the lock and v1", names)
	}
	// The entry is exactly one run's copy: nothing nested, nothing mixed.
	var markers = map[string]bool{}
	err = filepath.WalkDir(damaged, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		markers[string(b)] = true
		rel, _ := filepath.Rel(damaged, path)
		if strings.Count(rel, string(filepath.Separator)) != 1 {
			t.Errorf("unexpected file %s in the entry", rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(markers) != 1 {
		t.Fatalf("the entry mixes the copies of several runs: %v", markers)
	}
}
