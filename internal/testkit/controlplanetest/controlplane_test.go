package controlplanetest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestControlPlane starts a control plane, registers a node as a kubelet would, reads it back
// with kubectl and the admin kubeconfig, checks that RBAC refuses a service account without
// rights, and that Stop ends kube-apiserver.
func TestControlPlane(t *testing.T) {
	c := Start(t, Options{})
	c.AddNodes(t, Node{Name: "node-1", KubeletVersion: "v1.33.1", SystemUUID: "6C1E0A5E-0000-4000-8000-000000000001"})
	admin := filepath.Join(t.TempDir(), "admin.conf")
	if err := os.WriteFile(admin, c.AdminKubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := c.RunKubectl(nil, "--kubeconfig", admin, "get", "nodes", "--no-headers",
		"-o", "custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion,UUID:.status.nodeInfo.systemUUID")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(strings.Fields(out), " "), "node-1 v1.33.1 6C1E0A5E-0000-4000-8000-000000000001"; got != want {
		t.Errorf("kubectl get nodes = %q, want %q", got, want)
	}

	ns := c.Namespace(t, nil)
	norights := filepath.Join(t.TempDir(), "norights.conf")
	if err := os.WriteFile(norights, c.TokenKubeconfig("norights", c.ServiceAccountToken(t, ns, "norights")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := c.RunKubectl(nil, "--kubeconfig", norights, "get", "nodes"); err == nil || !strings.Contains(stderr, "Forbidden") {
		t.Errorf("a service account without rights listed nodes: %v %s", err, stderr)
	}

	pid := c.PID()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("kube-apiserver %d still there after Stop: %v", pid, err)
	}
}
