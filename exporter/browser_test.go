//go:build unix

package exporter

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// chromium runs Debian's headless Chromium once with the given extra arguments against url and
// returns what it printed on stdout. Chromium forks helpers: they run in their own process group,
// which is killed when the run ends or times out, so that nothing outlives the test.
func chromium(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
	}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind by a clean exit
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\nstderr:\n%s", strings.Join(extra, " "), err, stderr.String())
	}
	return stdout.String()
}

// artifactDir is where the screenshots are kept: $CKS_DRIFT_ARTIFACTS when set (CI keeps it),
// else the test's artifact directory (kept with go test -artifacts).
func artifactDir(t *testing.T) string {
	if dir := os.Getenv("CKS_DRIFT_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

// TestStatusPageInBrowser loads the status page of a running exporter in a real browser and
// checks the rendered DOM: the counts, the findings with their clusters, the unreachable cluster
// with its reason, the skipped cluster with its state, and the hostile name shown as text, not
// run. TestStatusPageLayoutInBrowser measures the layout and keeps the screenshots.
func TestStatusPageInBrowser(t *testing.T) {
	bin := tooltest.Require(t, "chromium", "apt-get install chromium (.ci/run installs it)")
	e, cs := statusWorld(t)

	dom := chromium(t, bin, e.url+"/", "--dump-dom")
	for _, want := range append(statusWorldPage(cs),
		"&lt;script&gt;alert(1)&lt;/script&gt;", // the hostile name, as text
	) {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	for _, injected := range []string{"<script", "<img"} {
		if strings.Contains(dom, injected) {
			t.Errorf("the hostile name became an element: the DOM has %q", injected)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}

	dom = chromium(t, bin, e.url+"/clusters/"+cs[2].ID, "--dump-dom")
	for _, want := range []string{"Cluster dark", "not listed: handshake", "the SSH handshake failed"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the cluster page lacks %q:\n%s", want, dom)
		}
	}

}
