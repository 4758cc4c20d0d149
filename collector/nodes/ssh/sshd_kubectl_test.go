package ssh

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/controlplanetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// The tests in this file run the default ssh.kubectl_command on Debian's sshd with the real
// kubectl of make kube-tools against a real kube-apiserver: what kubectl prints there, with and
// without its discovery cache, is what kubectl_detail and the reasons must make sense of.

// kubectlNodes are the cluster's nodes as kubelets registered them.
var kubectlNodes = []controlplanetest.Node{
	{Name: "real-control-18f3a2b4c5d", KubeletVersion: "v1.33.1", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000001"},
	{Name: "real-node-18f3a2b4c6e", KubeletVersion: "v1.32.4", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000002"},
}

// newKubectlNode is a control node whose kubectl is the real one, ~/.kube/config the kubeconfig,
// and no discovery cache yet.
func newKubectlNode(t *testing.T, cp *controlplanetest.ControlPlane, kubeconfig []byte) *realNode {
	t.Helper()
	return newRealNode(t, sshtest.ED25519, func(o *sshdtest.Options) {
		o.Kubectl = sshdtest.KubectlExec(cp.Kubectl())
		o.Home = map[string][]byte{".kube/config": kubeconfig}
	})
}

// defaultLister lists with the configuration's default command and timeouts.
func (n *realNode) defaultLister(t *testing.T) *Lister {
	t.Helper()
	d := config.Defaults()
	return n.lister(t, func(o *Options) { o.Command, o.Timeout = config.DefaultKubectlCommand, d.SSH.Timeout })
}

// wantDetail checks a failure's reason and that its detail is exactly want.
func wantDetail(t *testing.T, nodes []string, err error, reason, want string) {
	t.Helper()
	wantReason(t, nodes, err, reason)
	if d := Detail(err); d != want {
		t.Errorf("Detail() = %q\nwant        %q", d, want)
	}
}

// TestRealKubectl: the API server up, a token that may not list nodes (RBAC), the API server
// frozen (SIGSTOP) and then down, each with a control node whose kubectl has a discovery cache
// and one whose kubectl has none (a new node, or a cache past its TTL).
func TestRealKubectl(t *testing.T) {
	cp := controlplanetest.Start(t, controlplanetest.Options{})
	cp.AddNodes(t, kubectlNodes...)
	admin := cp.AdminKubeconfig()
	warm := newKubectlNode(t, cp, admin)
	server := strings.TrimPrefix(cp.URL(), "https://")

	t.Run("API up", func(t *testing.T) {
		// The default command, literally: one "<name> <kubelet version>" line per node.
		const command = "sudo /opt/bin/kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --request-timeout=1s"
		if config.DefaultKubectlCommand != command {
			t.Fatalf("the default command is %q, this test runs %q", config.DefaultKubectlCommand, command)
		}
		got, err := warm.defaultLister(t).ListNodes(t.Context(), warm.cluster)
		if err != nil {
			t.Fatal(err)
		}
		want := []collector.Node{
			{Name: kubectlNodes[0].Name, KubeletVersion: kubectlNodes[0].KubeletVersion},
			{Name: kubectlNodes[1].Name, KubeletVersion: kubectlNodes[1].KubeletVersion},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
		// And "-o name", the command of older configurations: names only.
		names, err := warm.nodes(t, warm.lister(t, func(o *Options) { o.Command = "sudo /opt/bin/kubectl get nodes -o name --request-timeout=1s" }))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(collector.NodeNames(want), names); diff != "" {
			t.Errorf("-o name: nodes (-want +got):\n%s", diff)
		}
	})

	t.Run("forbidden", func(t *testing.T) {
		ns := cp.Namespace(t, nil)
		n := newKubectlNode(t, cp, cp.TokenKubeconfig("norights", cp.ServiceAccountToken(t, ns, "norights")))
		nodes, err := n.nodes(t, n.defaultLister(t))
		wantDetail(t, nodes, err, "exit_status", fmt.Sprintf(
			`exit status 1: Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:%s:norights" cannot list resource "nodes" in API group "" at the cluster scope`, ns))
	})

	t.Run("frozen", func(t *testing.T) {
		cold := newKubectlNode(t, cp, admin)
		cp.Freeze()
		defer cp.Resume()
		for _, tc := range []struct {
			name string
			node *realNode
		}{{"discovery cache", warm}, {"no discovery cache", cold}} {
			t.Run(tc.name, func(t *testing.T) {
				nodes, err := tc.node.nodes(t, tc.node.defaultLister(t))
				// kubectl gives up before ssh.timeout and says why itself, after its log
				// lines when it has no discovery cache: "context deadline exceeded", or
				// "net/http: request canceled ... (Client.Timeout exceeded while awaiting
				// headers)".
				wantReason(t, nodes, err, "exit_status")
				if d := Detail(err); !strings.HasPrefix(d, "exit status 1: Unable to connect to the server: ") {
					t.Errorf("Detail() = %q, want kubectl's message", d)
				}
			})
		}
	})

	t.Run("down", func(t *testing.T) {
		cold := newKubectlNode(t, cp, admin)
		if err := cp.Stop(); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			node *realNode
		}{{"discovery cache", warm}, {"no discovery cache", cold}} {
			t.Run(tc.name, func(t *testing.T) {
				nodes, err := tc.node.nodes(t, tc.node.defaultLister(t))
				wantDetail(t, nodes, err, "exit_status",
					"exit status 1: The connection to the server "+server+" was refused - did you specify the right host or port?")
			})
		}
	})
}
