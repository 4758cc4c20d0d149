package deploytest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/controlplanetest"
)

// TestServerDryRun applies every value set the chart must render (one-replica.yaml holds only
// what it requires) to a real
// kube-apiserver with kubectl apply --dry-run=server, in a namespace that enforces and warns at
// Pod Security "restricted", after installing the CRDs of ServiceMonitor and PrometheusRule that
// make kube-tools copies from the prometheus-operator module. Every manifest must be accepted,
// and kubectl must print no warning (deprecated fields, Pod Security, unknown fields).
func TestServerDryRun(t *testing.T) {
	crds := controlplanetest.Tool(t, "prometheus-operator-crd")
	helm(t)
	cp := controlplanetest.Start(t, controlplanetest.Options{})
	files, err := filepath.Glob(filepath.Join(crds, "*.yaml"))
	if err != nil || len(files) != 2 {
		t.Fatalf("%s holds %v, want the two CRDs (%v)", crds, files, err)
	}
	// The CRDs are too large for the annotation of a client-side apply.
	if _, stderr, err := cp.RunKubectl(nil, "apply", "--server-side", "-f", files[0], "-f", files[1]); err != nil {
		t.Fatal(err)
	} else if stderr != "" {
		t.Errorf("installing the CRDs: %s", stderr)
	}
	cp.AwaitEstablished(t, "servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com")
	ns := cp.Namespace(t, map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest",
		"pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/warn-version": "latest",
	})
	for _, values := range validSets {
		t.Run(values, func(t *testing.T) {
			args := []string{"template", release, chartDir, "--namespace", ns, "-f", filepath.Join("testdata", values)}
			rendered, errOut, err := runHelm(t, args...)
			if err != nil {
				t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, errOut)
			}
			stdout, stderr, err := dryRun(cp, ns, rendered)
			if err != nil {
				t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, stderr)
			}
			if stderr != "" { // "Warning: ..." lines, or anything else
				t.Errorf("kubectl apply --dry-run=server wrote to stderr:\n%s", stderr)
			}
			objects := strings.Count(rendered, "\nkind: ")
			if got := strings.Count(stdout, "(server dry run)"); got != objects || objects == 0 {
				t.Errorf("%d of %d objects accepted:\n%s", got, objects, stdout)
			}
			t.Logf("%s", stdout)
		})
	}
}

// dryRun is kubectl apply --dry-run=server of the manifests in the namespace, and returns its
// stdout and stderr.
func dryRun(cp *controlplanetest.ControlPlane, ns, manifests string) (string, string, error) {
	return cp.RunKubectl([]byte(manifests), "apply", "--dry-run=server", "-n", ns, "-f", "-")
}
