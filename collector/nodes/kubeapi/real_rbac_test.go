package kubeapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/controlplanetest"
)

// TestRealAPIServer lists nodes from a real kube-apiserver with RBAC, with each credential the
// exporter meets: the admin kubeconfig CKS keeps, the least-privilege service account of
// docs/node-sources.md, a token that may not list nodes, an unknown token and a wrong CA.
func TestRealAPIServer(t *testing.T) {
	r := newRealRig(t, controlplanetest.Options{ControllerManager: true})
	r.cp.AddNodes(t, realNodes...)
	ctx := context.Background()

	t.Run("admin kubeconfig as CKS keeps it", func(t *testing.T) {
		r.cs.SetKubeconfig(r.cluster.ID, r.cp.AdminKubeconfig())
		got, err := r.lister(t).List(ctx, r.cluster)
		if err != nil {
			t.Fatal(err)
		}
		// Names, kubelet versions and system UUIDs exactly as the API server returns them.
		if diff := cmp.Diff(asNodes(realNodes), got); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
	})

	t.Run("least-privilege service account from the docs", func(t *testing.T) {
		dir := serviceAccountFromDocs(t, r.cp, r.cluster.ID)
		got, err := r.lister(t, func(o *Options) { o.KubeconfigDir, o.Configs = dir, nil }).List(ctx, r.cluster)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(asNodes(realNodes), got); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
	})

	t.Run("token without rights", func(t *testing.T) {
		ns := r.cp.Namespace(t, nil)
		r.cs.SetKubeconfig(r.cluster.ID, r.cp.TokenKubeconfig("norights", r.cp.ServiceAccountToken(t, ns, "norights")))
		nodes, err := r.lister(t).List(ctx, r.cluster)
		wantFailure(t, nodes, err, reasonAuth, "kubernetes API "+r.cp.URL()+": ",
			fmt.Sprintf(`nodes is forbidden: User "system:serviceaccount:%s:norights" cannot list resource "nodes" in API group "" at the cluster scope`, ns))
	})

	t.Run("unknown token", func(t *testing.T) {
		r.cs.SetKubeconfig(r.cluster.ID, r.cp.TokenKubeconfig("nobody", "not-a-token-of-this-cluster"))
		nodes, err := r.lister(t).List(ctx, r.cluster)
		wantFailure(t, nodes, err, reasonAuth, "kubernetes API "+r.cp.URL()+": Unauthorized")
	})

	t.Run("wrong CA", func(t *testing.T) {
		r.cs.SetKubeconfig(r.cluster.ID, r.cp.KubeconfigWithCA(controlplanetest.NewCA(t)))
		nodes, err := r.lister(t).List(ctx, r.cluster)
		wantFailure(t, nodes, err, reasonTLS, "certificate signed by unknown authority")
	})
}

// serviceAccountFromDocs follows "A read-only service account per cluster" of
// docs/node-sources.md literally: kubectl apply of its manifests with the admin kubeconfig, then
// its script as root for a service user created for the test, and returns the kubeconfig
// directory the script wrote.
func serviceAccountFromDocs(t *testing.T, cp *controlplanetest.ControlPlane, clusterID string) string {
	t.Helper()
	manifests, script := docsServiceAccount(t)
	admin := filepath.Join(t.TempDir(), "admin.conf")
	if err := os.WriteFile(admin, cp.AdminKubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cp.RunKubectl([]byte(manifests), "--kubeconfig", admin, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	} else if stderr != "" {
		t.Errorf("kubectl apply wrote to stderr: %s", stderr)
	}
	svc := controlplanetest.ServiceUser(t)
	dir := filepath.Join(controlplanetest.PassableDir(t), "kubeconfigs")
	out, err := controlplanetest.RunScript(t, cp, script, clusterID, admin, dir, svc)
	if err != nil {
		t.Fatalf("the docs' script: %v\n%s", err, out)
	}
	t.Logf("the docs' script:\n%s", out)
	// Its last step lists the nodes as the service user.
	for _, n := range realNodes {
		if !strings.Contains(out, "node/"+n.Name+"\n") {
			t.Errorf("the script's check as %s does not list node/%s", svc, n.Name)
		}
	}
	for _, p := range []struct {
		path, mode, owner string
	}{
		{dir, "drwxr-x---", "root:" + svc},
		{filepath.Join(dir, clusterID+".conf"), "-rw-r-----", "root:" + svc},
	} {
		if got := controlplanetest.ModeOwner(t, p.path); got != p.mode+" "+p.owner {
			t.Errorf("%s is %s, want %s %s", p.path, got, p.mode, p.owner)
		}
	}
	// The service account may list nodes and nothing else: not get one, not list pods.
	conf := filepath.Join(dir, clusterID+".conf")
	for _, args := range [][]string{{"get", "node", realNodes[0].Name}, {"get", "pods", "-A"}} {
		if _, stderr, err := cp.RunKubectl(nil, append([]string{"--kubeconfig", conf}, args...)...); err == nil || !strings.Contains(stderr, "Forbidden") {
			t.Errorf("kubectl %s with the service account's kubeconfig: %v %s, want Forbidden", strings.Join(args, " "), err, stderr)
		}
	}
	return dir
}

// docsServiceAccount returns the manifests and the script of "A read-only service account per
// cluster" in docs/node-sources.md: the section's first yaml and first sh block.
func docsServiceAccount(t *testing.T) (manifests, script string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "node-sources.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## A read-only service account per cluster\n")
	if !ok {
		t.Fatal(`docs/node-sources.md has no section "A read-only service account per cluster"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	block := func(lang string) string {
		// The fence's info string starts with the language; words after it mark the block for
		// docs/commands_test.go ("sh script").
		m := regexp.MustCompile("(?s)\n```" + lang + "(?: [^\n]*)?\n(.*?)\n```\n").FindStringSubmatch(section)
		if m == nil {
			t.Fatalf("the section has no %s block", lang)
		}
		return m[1] + "\n"
	}
	return block("yaml"), block("sh")
}
