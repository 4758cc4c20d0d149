package kubeapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
)

// TestFailureReasons makes each failure happen against the fake servers and checks its label.
// None of them may return nodes.
func TestFailureReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, r *rig) *Lister
		reason string
	}{
		{"CloudStack has no kubeconfig", func(t *testing.T, r *rig) *Lister { return r.lister(t) }, reasonKubeconfig},
		{"API server gone", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			r.api.Close()
			return r.lister(t)
		}, reasonUnreachable},
		{"unknown token", func(t *testing.T, r *rig) *Lister {
			r.serve(t, kubetest.Credential{Token: "not-issued"})
			return r.lister(t)
		}, reasonAuth},
		{"token may not list nodes", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(false))
			return r.lister(t)
		}, reasonAuth},
		{"revoked client certificate", func(t *testing.T, r *rig) *Lister {
			cred, err := r.api.NewClientCert("kubernetes-admin", true)
			if err != nil {
				t.Fatal(err)
			}
			r.serve(t, cred)
			r.api.Revoke()
			return r.lister(t)
		}, reasonAuth},
		{"another CA", func(t *testing.T, r *rig) *Lister {
			other, err := kubetest.NewServer()
			if err != nil {
				t.Fatal(err)
			}
			other.Close()
			data, err := kubetest.KubeconfigFor(r.api.URL(), other.CAPEM(), r.api.NewToken(true))
			if err != nil {
				t.Fatal(err)
			}
			r.cs.SetKubeconfig(r.cluster.ID, data)
			return r.lister(t)
		}, reasonTLS},
		{"plain http server", func(t *testing.T, r *rig) *Lister {
			data, err := kubetest.KubeconfigFor(strings.Replace(r.api.URL(), "https:", "http:", 1), r.api.CAPEM(), r.api.NewToken(true))
			if err != nil {
				t.Fatal(err)
			}
			r.cs.SetKubeconfig(r.cluster.ID, data)
			return r.lister(t)
		}, reasonTLS},
		{"slow API server", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			r.api.SetDelay(time.Minute)
			return r.lister(t, func(o *Options) { o.Timeout = 200 * time.Millisecond })
		}, reasonTimeout},
		{"more nodes than max_nodes", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			return r.lister(t, func(o *Options) { o.MaxNodes = 2 })
		}, reasonTooMany},
		{"server error", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			r.api.SetStatus(500)
			return r.lister(t, func(o *Options) { o.Timeout = 2 * time.Second })
		}, reasonOther},
		{"no nodes", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			r.api.SetNodes()
			return r.lister(t)
		}, reasonBadAnswer},
		{"invalid node name", func(t *testing.T, r *rig) *Lister {
			r.serve(t, r.api.NewToken(true))
			r.api.SetNodes(kubetest.Node{Name: "Bad_Name\x1b[31m"})
			return r.lister(t)
		}, reasonBadAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, threeNodes...)
			l := tc.setup(t, r)
			nodes, err := l.Nodes(context.Background(), r.cluster)
			if nodes != nil || Reason(err) != tc.reason {
				t.Fatalf("Nodes = %v, %v (reason %q), want no nodes and reason %q", nodes, err, Reason(err), tc.reason)
			}
		})
	}
}

// TestHostileKubeconfigs: a kubeconfig from CloudStack is written by whoever is root on the
// cluster's control node. None of these may make the exporter read a local file, run a command,
// skip verification or quote the kubeconfig in an error.
func TestHostileKubeconfigs(t *testing.T) {
	const secret = "s3cr3t-Token-Otter-4471"
	head := "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
	for _, tc := range []struct {
		name, conf, reason string
	}{
		{"exec plugin", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/touch, args: [/tmp/pwned]}\n", reasonKubeconfig},
		{"auth provider", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user:\n    auth-provider: {name: oidc, config: {id-token: " + secret + "}}\n", reasonKubeconfig},
		{"token file", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {tokenFile: /etc/shadow}\n", reasonKubeconfig},
		{"client key file", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {client-certificate: /etc/ssl/c.pem, client-key: /var/lib/cloudstack/management/.ssh/id_rsa}\n", reasonKubeconfig},
		{"CA file", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1', certificate-authority: /etc/ssl/ca.pem}\nusers:\n- name: u\n  user: {token: " + secret + "}\n", reasonKubeconfig},
		{"proxy", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1', proxy-url: 'http://127.0.0.1:2'}\nusers:\n- name: u\n  user: {token: " + secret + "}\n", reasonKubeconfig},
		{"insecure", head + "clusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: " + secret + "}\n", reasonTLS},
		{"no current context", "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {token: " + secret + "}\n", reasonKubeconfig},
		{"type error quoting the token", head + "clusters: " + secret + "\n", reasonKubeconfig},
		{"not YAML", "\x00\x01" + secret + "{[", reasonKubeconfig},
		{"too large", head + "# " + strings.Repeat(secret, maxKubeconfig/len(secret)+1) + "\n", reasonKubeconfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, threeNodes...)
			r.cs.SetKubeconfig(r.cluster.ID, []byte(tc.conf))
			nodes, err := r.lister(t).Nodes(context.Background(), r.cluster)
			if nodes != nil || Reason(err) != tc.reason {
				t.Fatalf("Nodes = %v, %v (reason %q), want reason %q", nodes, err, Reason(err), tc.reason)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error quotes the kubeconfig: %v", err)
			}
		})
	}
}

// TestClusterIDNeverAPath: a cluster id is never turned into a path outside kubeconfig_dir.
func TestClusterIDNeverAPath(t *testing.T) {
	r := newRig(t, threeNodes...)
	l := r.lister(t, func(o *Options) { o.KubeconfigDir = t.TempDir() })
	c := r.cluster
	c.ID = "../../../../etc/passwd"
	if _, err := l.Nodes(context.Background(), c); Reason(err) != reasonKubeconfig {
		t.Fatalf("reason %q (%v), want %q", Reason(err), err, reasonKubeconfig)
	}
	if n := r.configCalls(); n != 0 {
		t.Errorf("CloudStack asked %d times for a malformed id", n)
	}
}

// TestPageCap reads past the page cap through the body wrapper.
func TestPageCap(t *testing.T) {
	b := &cappedBody{ReadCloser: nopCloser{strings.NewReader(strings.Repeat("x", 100))}, left: 10}
	buf := make([]byte, 64)
	if _, err := b.Read(buf); err != errPageTooLarge {
		t.Fatalf("err = %v, want errPageTooLarge", err)
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
