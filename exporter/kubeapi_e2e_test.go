package exporter

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestKubernetesAPISourceScenarios runs the built binary with check.node_source kubernetes_api
// and no SSH key on disk through the scenarios of docs/scenarios.md that read nodes: the
// baseline, a VM that is not a node, the API unreachable (the node finding carried over, neither
// cleared nor announced again), a node without a VM after the API server moved (CloudStack's
// kubeconfig fetched again), and everything matching again.
func TestKubernetesAPISourceScenarios(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2}, simulator.ClusterSpec{Name: "other", Workers: 1})
	test, worker := cs[0], cs[0].VMs[2]
	api := startKubeAPI(t, e.sim, test)
	other := startKubeAPI(t, e.sim, cs[1])
	e.writeConfig("  interval: 100ms\n", "")
	e.useKubernetesAPI()
	p := startProcess(t, bin, e.cfg)
	e.url = "http://" + p.listenAddress(t)

	// Baseline: both clusters checked and read, nothing found, nothing written, one kubeconfig
	// fetched per cluster however many cycles run.
	e.nextCycles(3)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %v", f)
	}
	for k, v := range matching(e.metrics(), `^cks_drift_(cluster_checked|kubectl_reachable)\{`) {
		if v != 1 {
			t.Errorf("%s = %v, want 1", k, v)
		}
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("baseline writes: %v", w)
	}
	if n := configCalls(e.sim); n != 2 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want once per cluster", n)
	}

	// A VM that is not a node.
	api.SetNodes(nodesWithout(test, worker)...)
	e.waitFor("vm_not_a_node", func() bool { return slices.Equal(e.findings(), []string{"test vm_not_a_node " + worker}) })
	e.nextCycles(2)
	if w := e.writes(); count(w, "addAnnotation [WARN] VM "+worker, "is running but is not a Kubernetes node") != 1 || len(w) != 2 {
		t.Fatalf("writes for vm_not_a_node: %q", w)
	}

	// The API server gone: the VM side only; the node finding stays, unannounced.
	written := len(e.writes())
	api.Close()
	e.waitFor("api_unreachable", func() bool {
		return e.metrics()[`cks_drift_kubectl_failures_total{reason="api_unreachable"}`] >= 2
	})
	e.nextCycles(2)
	if r := matching(e.metrics(), `^cks_drift_kubectl_reachable\{.*cluster_name="test"`); len(r) != 1 || r[keyOf(r)] != 0 {
		t.Fatalf("kubectl_reachable of test: %v", r)
	}
	if f := e.findings(); !slices.Equal(f, []string{"test vm_not_a_node " + worker}) {
		t.Fatalf("findings while the API is unreachable: %v", f)
	}
	if w := e.writes()[written:]; len(w) != 0 {
		t.Fatalf("writes while the API is unreachable: %q", w)
	}
	// The WARN line names the API server that was asked, not an SSH address.
	warn := regexp.MustCompile(`level=WARN [^\n]*msg="Could not list the Kubernetes nodes of the cluster[^\n]*reason=api_unreachable[^\n]*`)
	if line := warn.FindString(p.out.String()); !strings.Contains(line, " api="+api.URL()) || strings.Contains(line, "ssh_host") {
		t.Errorf("the WARN line for the unreachable API server = %q, want api=%s and no ssh_host; log:\n%s", line, api.URL(), p.out.String())
	}

	// The API server at a new address with a stranger node: CloudStack's new kubeconfig is
	// fetched, the worker is a node again, the stranger has no VM.
	moved := startKubeAPI(t, e.sim, test, "stranger")
	e.waitFor("node_without_vm", func() bool { return slices.Equal(e.findings(), []string{"test node_without_vm stranger"}) })
	w := e.writes()[written:]
	if count(w, "addAnnotation [WARN] Kubernetes node stranger of cluster test has no VM in CloudStack") != 1 {
		t.Fatalf("writes for node_without_vm: %q", w)
	}

	// Everything matches again: one resolution for the node side.
	written = len(e.writes())
	moved.SetNodes(nodesWithout(test, "")...)
	e.waitFor("no findings", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	if w := e.writes()[written:]; count(w, "addAnnotation [INFO] The VM map of Kubernetes cluster test matches the Kubernetes nodes of the cluster again") != 1 {
		t.Fatalf("writes after the drift was undone: %q", w)
	}

	if code := p.terminate(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, p.out.String())
	}
	out := p.out.String()
	for _, tok := range []string{api.token, other.token, moved.token} {
		if strings.Contains(out, tok) {
			t.Fatalf("the output shows a kubeconfig's token")
		}
	}
	if strings.Contains(out, "level=ERROR") {
		t.Fatalf("errors logged:\n%s", out)
	}
}
