package kubeapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	inventoryapi "github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/controlplanetest"
)

// realRig is one cluster whose API server is a real kube-apiserver, and a fake CloudStack that
// hands out its kubeconfig as CKS keeps it.
type realRig struct {
	cp      *controlplanetest.ControlPlane
	cs      *cloudstacktest.Server
	source  *inventoryapi.Source
	cluster collector.Cluster
}

func newRealRig(t *testing.T, o controlplanetest.Options) *realRig {
	t.Helper()
	cp := controlplanetest.Start(t, o)
	cs, source, cluster := fakeCloud(t, "real", cp.URL())
	return &realRig{cp: cp, cs: cs, source: source, cluster: cluster}
}

// lister lists through CloudStack's kubeconfig, with the configuration's defaults.
func (r *realRig) lister(t *testing.T, change ...func(*Options)) *Lister {
	t.Helper()
	d := config.Defaults()
	o := Options{Timeout: d.KubernetesAPI.Timeout, MaxNodes: d.SSH.MaxNodes, Configs: r.source,
		Logger: slog.New(slog.DiscardHandler), Now: time.Now}
	for _, f := range change {
		f(&o)
	}
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// wantFailure checks that a list failed with reason, returned no nodes, and that its detail, as
// /findings shows it, holds each of texts.
func wantFailure(t *testing.T, nodes []Node, err error, reason string, texts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("List() = %d nodes, want an error with reason %q", len(nodes), reason)
	}
	t.Logf("error: %v", err)
	if nodes != nil {
		t.Errorf("List() returned %d nodes with its error", len(nodes))
	}
	if got := Reason(err); got != reason {
		t.Errorf("Reason() = %q, want %q", got, reason)
	}
	for _, s := range texts {
		if d := ssh.Detail(err); !strings.Contains(d, s) {
			t.Errorf("detail %q does not hold %q", d, s)
		}
	}
}

// realNodes are nodes as kubelets register them: kubeadm names, SMBIOS system UUIDs in the upper
// case dmidecode prints on some machines and the lower case of others, and kubelet versions of
// a cluster in the middle of an upgrade.
var realNodes = []controlplanetest.Node{
	{Name: "real-control-18fd1d2a3b4", KubeletVersion: "v1.33.1", SystemUUID: "6C1E0A5E-0000-4000-8000-000000000001"},
	{Name: "real-node-18fd1d2a3c5", KubeletVersion: "v1.33.1", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000002"},
	{Name: "real-node-18fd1d2a3d6", KubeletVersion: "v1.32.4", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000003"},
}

func asNodes(in []controlplanetest.Node) []Node {
	out := make([]Node, len(in))
	for i, n := range in {
		out[i] = Node{Name: n.Name, SystemUUID: n.SystemUUID, KubeletVersion: n.KubeletVersion}
	}
	return out
}

// TestRealAPIServerFrozenAndStopped freezes kube-apiserver with SIGSTOP (timeout), resumes it
// with SIGCONT (the next list reads again), then stops it (api_unreachable).
func TestRealAPIServerFrozenAndStopped(t *testing.T) {
	r := newRealRig(t, controlplanetest.Options{})
	r.cp.AddNodes(t, realNodes...)
	r.cs.SetKubeconfig(r.cluster.ID, r.cp.AdminKubeconfig())
	l := r.lister(t, func(o *Options) { o.Timeout = 2 * time.Second })
	ctx := context.Background()
	if _, err := l.List(ctx, r.cluster); err != nil {
		t.Fatal(err)
	}

	r.cp.Freeze()
	nodes, err := l.List(ctx, r.cluster)
	r.cp.Resume()
	wantFailure(t, nodes, err, reasonTimeout, "kubernetes API "+r.cp.URL()+": ")

	got, err := l.List(ctx, r.cluster)
	if err != nil {
		t.Fatalf("after SIGCONT: %v", err)
	}
	if diff := cmp.Diff(asNodes(realNodes), got); diff != "" {
		t.Errorf("after SIGCONT, nodes (-want +got):\n%s", diff)
	}

	if err := r.cp.Stop(); err != nil {
		t.Fatal(err)
	}
	nodes, err = l.List(ctx, r.cluster)
	wantFailure(t, nodes, err, reasonUnreachable, "connection refused")
}

// TestRealAPIServerManyNodes lists 1,200 nodes: past ssh.max_nodes's default of 1,000 the list is
// too_many_nodes, and with the limit raised it pages through the real server's limit and
// continue (500 a page: 3 pages), every node once, over one HTTP/1.1 connection, which
// kube-apiserver serves as it serves HTTP/2.
func TestRealAPIServerManyNodes(t *testing.T) {
	r := newRealRig(t, controlplanetest.Options{})
	var want []controlplanetest.Node
	for i := range 1200 {
		want = append(want, controlplanetest.Node{Name: fmt.Sprintf("big-node-%04d", i),
			KubeletVersion: "v1.33.1", SystemUUID: fmt.Sprintf("6c1e0a5e-0000-4000-8000-%012d", i)})
	}
	r.cp.AddNodes(t, want...)
	admin := r.cp.AdminKubeconfig()
	r.cs.SetKubeconfig(r.cluster.ID, admin)
	ctx := context.Background()

	nodes, err := r.lister(t).List(ctx, r.cluster)
	wantFailure(t, nodes, err, reasonTooMany, "more than 1000 nodes")

	got, err := r.lister(t, func(o *Options) { o.MaxNodes = 2000 }).List(ctx, r.cluster)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(asNodes(want), got); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}

	// The same list through the lister's client, counting its requests and connections: the
	// real server's pages, over one HTTP/1.1 connection.
	rc, err := restConfig(admin, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int32
	var protocols sync.Map
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			requests.Add(1)
			resp, err := rt.RoundTrip(req)
			if err == nil {
				protocols.Store(resp.Proto+" "+resp.TLS.NegotiatedProtocol, true)
			}
			return resp, err
		})
	})
	conns := newConnBudget()
	hc, err := httpClient(rc, conns)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.RESTClientForConfigAndClient(rc, hc)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := list(ctx, client, 2000); err != nil || len(got) != 1200 {
		t.Fatalf("counted list: %d nodes, %v", len(got), err)
	}
	if n := requests.Load(); n != 3 {
		t.Errorf("%d requests for 1,200 nodes, want 3 pages of at most 500", n)
	}
	if opened := maxConns - conns.left.Load(); opened != 1 {
		t.Errorf("%d connections for one list, want 1", opened)
	}
	protocols.Range(func(k, _ any) bool {
		if k != "HTTP/1.1 http/1.1" {
			t.Errorf("kube-apiserver answered over %q, want HTTP/1.1 (ALPN http/1.1)", k)
		}
		return true
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
