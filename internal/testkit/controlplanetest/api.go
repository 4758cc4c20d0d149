package controlplanetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// userCert is a client certificate and its key, PEM-encoded.
type userCert struct{ cert, key []byte }

// kubeconfig writes a kubeconfig in the layout of kubeadm's admin.conf: one cluster named
// kubernetes, one user, the context <user>@kubernetes, everything inline.
func (c *ControlPlane) kubeconfig(user string, cred any, caPEM []byte) []byte {
	var u string
	switch v := cred.(type) {
	case userCert:
		u = fmt.Sprintf("    client-certificate-data: %s\n    client-key-data: %s\n",
			base64.StdEncoding.EncodeToString(v.cert), base64.StdEncoding.EncodeToString(v.key))
	case string:
		u = fmt.Sprintf("    token: %s\n", v)
	}
	return fmt.Appendf(nil, `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: %s
  name: %s@kubernetes
current-context: %s@kubernetes
kind: Config
preferences: {}
users:
- name: %s
  user:
%s`, base64.StdEncoding.EncodeToString(caPEM), c.URL(), user, user, user, user, u)
}

// AdminKubeconfig is the kubeconfig CKS keeps for a cluster (getKubernetesClusterConfig returns
// it): the control node's /etc/kubernetes/admin.conf as kubeadm writes it, a client certificate
// of kubernetes-admin in group kubeadm:cluster-admins, which is bound to cluster-admin.
func (c *ControlPlane) AdminKubeconfig() []byte {
	c.t.Helper()
	cert, key := c.ca.issue(c.t, "kubernetes-admin", []string{"kubeadm:cluster-admins"}, false)
	return c.kubeconfig("kubernetes-admin", userCert{cert, key}, c.ca.certPEM)
}

// TokenKubeconfig is a kubeconfig for this API server with a bearer token.
func (c *ControlPlane) TokenKubeconfig(user, token string) []byte {
	return c.kubeconfig(user, token, c.ca.certPEM)
}

// KubeconfigWithCA is the admin kubeconfig with another CA in place of the cluster's, such as
// NewCA's: the API server's certificate does not verify against it.
func (c *ControlPlane) KubeconfigWithCA(caPEM []byte) []byte {
	c.t.Helper()
	cert, key := c.ca.issue(c.t, "kubernetes-admin", []string{"kubeadm:cluster-admins"}, false)
	return c.kubeconfig("kubernetes-admin", userCert{cert, key}, caPEM)
}

// SuperAdminKubeconfigFile is the path of a kubeconfig in group system:masters, for kubectl.
func (c *ControlPlane) SuperAdminKubeconfigFile() string { return c.file("super-admin.conf") }

// Do sends a request with the super-admin's credential, body encoded as JSON unless it is a
// []byte, and returns the status code and the answer.
func (c *ControlPlane) Do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var r io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(data)
	}
	if method == http.MethodPatch {
		ctype = "application/merge-patch+json"
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL()+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, data, err
}

// MustDo is Do that fails t unless the answer has status want.
func (c *ControlPlane) MustDo(t testing.TB, method, path string, body any, want int) []byte {
	t.Helper()
	code, data, err := c.Do(context.Background(), method, path, body)
	if err != nil {
		t.Fatalf("controlplanetest: %s %s: %v", method, path, err)
	}
	if code != want {
		t.Fatalf("controlplanetest: %s %s: status %d, want %d: %s", method, path, code, want, data)
	}
	return data
}

// Node is a Node object as a kubelet would register it, reduced to what the exporter reads.
type Node struct {
	Name           string
	KubeletVersion string // status.nodeInfo.kubeletVersion, "v1.33.1"
	SystemUUID     string // status.nodeInfo.systemUUID
}

// AddNodes creates the nodes through the API, as no kubelet runs, and sets their nodeInfo through
// the status subresource, as a kubelet does (the status of a create is dropped). Eight requests
// run at a time.
func (c *ControlPlane) AddNodes(t testing.TB, nodes ...Node) {
	t.Helper()
	work := make(chan Node)
	errs := make(chan error, len(nodes))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for n := range work {
				errs <- c.addNode(n)
			}
		})
	}
	for _, n := range nodes {
		work <- n
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("controlplanetest: %v", err)
		}
	}
}

func (c *ControlPlane) addNode(n Node) error {
	ctx := context.Background()
	code, data, err := c.Do(ctx, http.MethodPost, "/api/v1/nodes", map[string]any{
		"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": n.Name}})
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("status %d: %s", code, data)
	}
	if err != nil {
		return fmt.Errorf("create node %s: %w", n.Name, err)
	}
	code, data, err = c.Do(ctx, http.MethodPatch, "/api/v1/nodes/"+n.Name+"/status", map[string]any{
		"status": map[string]any{"nodeInfo": map[string]any{"kubeletVersion": n.KubeletVersion, "systemUUID": n.SystemUUID}}})
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("status %d: %s", code, data)
	}
	if err != nil {
		return fmt.Errorf("set the status of node %s: %w", n.Name, err)
	}
	return nil
}

// Namespace creates a namespace of a unique name with the labels and returns its name.
func (c *ControlPlane) Namespace(t testing.TB, labels map[string]string) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "test-" + hex.EncodeToString(b)
	c.MustDo(t, http.MethodPost, "/api/v1/namespaces", map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "labels": labels}}, http.StatusCreated)
	return name
}

// ServiceAccountToken creates the service account namespace/name unless it exists and returns
// a token for it from the TokenRequest API (no controller needed), valid for an hour.
func (c *ControlPlane) ServiceAccountToken(t testing.TB, namespace, name string) string {
	t.Helper()
	code, data, err := c.Do(context.Background(), http.MethodPost, "/api/v1/namespaces/"+namespace+"/serviceaccounts",
		map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name}})
	if err != nil || (code != http.StatusCreated && code != http.StatusConflict) {
		t.Fatalf("controlplanetest: create service account %s/%s: %d %v %s", namespace, name, code, err, data)
	}
	data = c.MustDo(t, http.MethodPost, "/api/v1/namespaces/"+namespace+"/serviceaccounts/"+name+"/token",
		map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
			"spec": map[string]any{"expirationSeconds": 3600}}, http.StatusCreated)
	var tr struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(data, &tr); err != nil || tr.Status.Token == "" {
		t.Fatalf("controlplanetest: token of %s/%s: %v %s", namespace, name, err, data)
	}
	return tr.Status.Token
}

// Kubectl is the kubectl make kube-tools built, of the control plane's Kubernetes version.
func (c *ControlPlane) Kubectl() string { return c.kubectl }

// KubectlCommand is that kubectl with the super-admin's kubeconfig (a later --kubeconfig in args
// wins) and its discovery cache in cacheDir, as KUBECACHEDIR (kubectl 1.26 and later) puts it.
func (c *ControlPlane) KubectlCommand(cacheDir string, args ...string) *exec.Cmd {
	cmd := exec.Command(c.kubectl, append([]string{"--kubeconfig", c.SuperAdminKubeconfigFile()}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+c.dir, "KUBECACHEDIR="+cacheDir)
	return cmd
}

// RunKubectl runs KubectlCommand with a cache in the test's directory and stdin, and returns its
// stdout and stderr; a failure is returned, not fatal.
func (c *ControlPlane) RunKubectl(stdin []byte, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	cmd := c.KubectlCommand(filepath.Join(c.dir, "kubecache"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	err = cmd.Run()
	if err != nil {
		err = fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String(), err
}

// AwaitEstablished waits until the API server serves each CustomResourceDefinition (condition
// Established), at most a minute; kubectl wait refuses a CRD that has no conditions yet.
func (c *ControlPlane) AwaitEstablished(t testing.TB, names ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for _, name := range names {
		for {
			code, data, err := c.Do(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, nil)
			var crd struct {
				Status struct {
					Conditions []struct{ Type, Status string } `json:"conditions"`
				} `json:"status"`
			}
			if err == nil && code == http.StatusOK && json.Unmarshal(data, &crd) == nil &&
				slices.ContainsFunc(crd.Status.Conditions, func(c struct{ Type, Status string }) bool {
					return c.Type == "Established" && c.Status == "True"
				}) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("controlplanetest: CRD %s not established: %d %v %.200s", name, code, err, data)
			case <-tick.C:
			}
		}
	}
}
