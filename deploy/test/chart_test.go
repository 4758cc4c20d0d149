package deploytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

const (
	chartDir = "../helm/cks-drift-exporter"
	release  = "rel"
	// fullname is the name the chart gives every object of release "rel".
	fullname = "rel-cks-drift-exporter"
)

// helm returns the helm binary: $HELM (make test builds it from tools/helm), else helm on PATH.
func helm(t *testing.T) string {
	t.Helper()
	name := os.Getenv("HELM")
	if name == "" {
		name = "helm"
	}
	return tooltest.Require(t, name, "make test builds it (go -C tools/helm build -o build/helm helm.sh/helm/v3/cmd/helm) and sets HELM")
}

// runHelm runs helm with its caches in a temporary folder, and returns stdout and stderr.
func runHelm(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helm(t), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// render is helm template of the chart with one value file of testdata.
func render(t *testing.T, values string) string {
	t.Helper()
	out, errOut, err := runHelm(t, "template", release, chartDir, "--namespace", "monitoring", "-f", filepath.Join("testdata", values))
	if err != nil {
		t.Fatalf("helm template -f %s: %v\n%s", values, err, errOut)
	}
	return out
}

// validSets are the value sets that must render: one replica, three shards, three unsharded
// replicas behind Alertmanager with an existing Secret and no volume, a scrape job and interval
// of one's own, TLS with and without basic auth, and the naming, image and scheduling knobs.
var validSets = []string{"one-replica.yaml", "three-shards.yaml", "three-alertmanager.yaml",
	"custom-job.yaml", "tls-basic-auth.yaml", "tls-only.yaml", "overrides.yaml"}

func TestHelmLint(t *testing.T) {
	for _, values := range validSets {
		t.Run(values, func(t *testing.T) {
			out, errOut, err := runHelm(t, "lint", "--strict", chartDir, "-f", filepath.Join("testdata", values))
			if err != nil || !strings.Contains(out, "1 chart(s) linted, 0 chart(s) failed") {
				t.Fatalf("helm lint --strict: %v\n%s%s", err, out, errOut)
			}
		})
	}
}

// TestChartRefuses: value sets the chart must refuse, with a message that says what to change.
// Above all, only one notifier per cloud: several direct-mode replicas must be shards.
func TestChartRefuses(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{"invalid-direct-unsharded.yaml", "replicas: 3 with sharding: false and config.notifier.mode: direct would announce every finding 3 times"},
		{"invalid-no-endpoint.yaml", "config.cloudstack.endpoint is required"},
		{"invalid-no-api-key.yaml", "secrets.apiKey is required (or secrets.existingSecret)"},
		{"invalid-alertmanager-no-token.yaml", "secrets.webhookToken is required with config.notifier.mode: alertmanager"},
		{"invalid-basic-auth-no-scrape-auth.yaml", "serviceMonitor.basicAuth is required with webConfig.basicAuth.enabled"},
		{"invalid-tls-no-secret.yaml", "webConfig.tls.secretName is required with webConfig.tls.enabled"},
		{"invalid-job-name.yaml", `serviceMonitor.jobName "cks\"drift" is not a Kubernetes label value`},
	} {
		t.Run(tc.values, func(t *testing.T) {
			_, errOut, err := runHelm(t, "template", release, chartDir, "-f", filepath.Join("testdata", tc.values))
			if err == nil || !strings.Contains(errOut, tc.want) {
				t.Fatalf("helm template -f %s: err %v, stderr %q; want a failure with %q", tc.values, err, errOut, tc.want)
			}
		})
	}
}
