package exporter

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// kubeAPI is a simulated cluster's Kubernetes API server, with the cluster's node VMs (etcd ones
// aside) as its nodes and CloudStack handing out a kubeconfig for it with a fresh token.
type kubeAPI struct {
	*kubetest.Server
	token string
	conf  []byte
}

func startKubeAPI(t testing.TB, sim *simulator.Simulator, c simulator.Cluster, extra ...string) *kubeAPI {
	t.Helper()
	srv, err := kubetest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	var nodes []kubetest.Node
	for _, vm := range c.VMs {
		if !strings.Contains(vm, "-etcd") {
			nodes = append(nodes, kubetest.Node{Name: strings.ToLower(vm)})
		}
	}
	for _, n := range extra {
		nodes = append(nodes, kubetest.Node{Name: n})
	}
	srv.SetNodes(nodes...)
	cred := srv.NewToken(true)
	conf, err := srv.Kubeconfig(cred)
	if err != nil {
		t.Fatal(err)
	}
	sim.CloudStack.SetKubeconfig(c.ID, conf)
	return &kubeAPI{Server: srv, token: cred.Token, conf: conf}
}

// without returns the server's nodes for c less the one of vm.
func nodesWithout(c simulator.Cluster, vm string) []kubetest.Node {
	var out []kubetest.Node
	for _, n := range c.VMs {
		if n != vm && !strings.Contains(n, "-etcd") {
			out = append(out, kubetest.Node{Name: strings.ToLower(n)})
		}
	}
	return out
}

// useKubernetesAPI switches e's configuration to the Kubernetes API and removes the SSH key the
// simulator wrote, so that the exporter runs without one.
func (e *env) useKubernetesAPI() {
	e.t.Helper()
	e.setConfig(strings.Replace(e.config(), "check:\n", "check:\n  node_source: kubernetes_api\n", 1))
	if err := os.Remove(filepath.Join(e.dir, "id_ed25519")); err != nil {
		e.t.Fatal(err)
	}
}

// listenAddress waits for the binary to log the address it listens on.
func (p *process) listenAddress(t *testing.T) string {
	t.Helper()
	re := regexp.MustCompile(`msg="Listening on" address=(127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("the exporter exited before listening:\n%s", p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the exporter did not listen within 30s:\n%s", p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// configCalls counts the getKubernetesClusterConfig calls CloudStack received.
func configCalls(sim *simulator.Simulator) int {
	return sim.CloudStack.CallCount("getKubernetesClusterConfig")
}
