package controlplanetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// EnvDir names the environment variable with the directory that holds the binaries, when it is
// not the repository's build/ (scripts/kube-tools.sh writes there too).
const EnvDir = "KUBE_TOOLS_DIR"

// hint says how to get the binaries.
const hint = "run `make kube-tools` (builds etcd, kube-apiserver, kube-controller-manager and kubectl into build/; .ci/run does) or set " + EnvDir

// Tool returns the path of one of the binaries make kube-tools builds (etcd, kube-apiserver,
// kube-controller-manager, kubectl) or of a file it copies (prometheus-operator-crd/...). Without
// it the test is skipped, or fails when CI is set; with -short it is skipped.
func Tool(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("controlplanetest: a real Kubernetes control plane, skipped with -short")
	}
	dir := Dir()
	if dir == "" {
		tooltest.Unavailable(t, "controlplanetest: no build/ directory found above "+cwd(), hint)
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		tooltest.Unavailable(t, "controlplanetest: "+p+" not found", hint)
	}
	return p
}

// Dir is the directory of the binaries: $KUBE_TOOLS_DIR, else build/ at the top of the
// repository (the directory above the working directory that holds scripts/kube-tools.sh), "" when
// there is none.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
		return d
	}
	for d := cwd(); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "scripts", "kube-tools.sh")); err == nil {
			return filepath.Join(d, "build")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func cwd() string {
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}
