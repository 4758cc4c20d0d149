package kubeapi

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
)

// TestListsEveryPage lists a cluster whose API server answers two nodes a page, with a bearer
// token and with a client certificate, and checks every node with its system UUID comes back in
// order after following the continue tokens.
func TestListsEveryPage(t *testing.T) {
	for _, tc := range []struct {
		name string
		cred func(*kubetest.Server) (kubetest.Credential, error)
	}{
		{"bearer token", func(s *kubetest.Server) (kubetest.Credential, error) { return s.NewToken(true), nil }},
		{"client certificate", func(s *kubetest.Server) (kubetest.Credential, error) {
			return s.NewClientCert("kubernetes-admin", true)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, threeNodes...)
			r.api.SetMaxLimit(2)
			cred, err := tc.cred(r.api)
			if err != nil {
				t.Fatal(err)
			}
			r.serve(t, cred)
			got, err := r.lister(t).List(context.Background(), r.cluster)
			if err != nil {
				t.Fatal(err)
			}
			want := []Node{
				{Name: threeNodes[0].Name, SystemUUID: threeNodes[0].SystemUUID, KubeletVersion: threeNodes[0].KubeletVersion},
				{Name: threeNodes[1].Name, SystemUUID: threeNodes[1].SystemUUID, KubeletVersion: threeNodes[1].KubeletVersion},
				{Name: threeNodes[2].Name, SystemUUID: threeNodes[2].SystemUUID, KubeletVersion: threeNodes[2].KubeletVersion},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			reqs := r.api.Requests()
			if len(reqs) != 2 || reqs[0].Continue != "" || reqs[1].Continue == "" || reqs[0].Limit != "101" {
				t.Errorf("requests = %+v, want two pages, the second with a continue token, limit max_nodes+1", reqs)
			}
		})
	}
}

// TestKubeconfigCachedAndFetchedAgain checks getKubernetesClusterConfig is asked once for a
// cluster, again after the API refuses the credential, and that a refusal with an unchanged
// kubeconfig stays a failure.
func TestKubeconfigCachedAndFetchedAgain(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, threeNodes...)
	r.serve(t, r.api.NewToken(true))
	l := r.lister(t)
	for range 3 {
		if _, err := l.Nodes(ctx, r.cluster); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.configCalls(); n != 1 {
		t.Fatalf("getKubernetesClusterConfig called %d times for three lists, want 1", n)
	}

	r.api.Revoke()
	_, err := l.Nodes(ctx, r.cluster)
	if Reason(err) != reasonAuth {
		t.Fatalf("revoked credential, same kubeconfig: reason %q (%v), want %q", Reason(err), err, reasonAuth)
	}
	if n := r.configCalls(); n != 2 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want one more after the refusal", n)
	}

	r.cs.SetKubeconfig(r.cluster.ID, []byte("not a kubeconfig"))
	if _, err := l.Nodes(ctx, r.cluster); Reason(err) != reasonKubeconfig {
		t.Fatalf("revoked credential, CloudStack's kubeconfig unusable: reason %q (%v), want %q", Reason(err), err, reasonKubeconfig)
	}
	if n := r.configCalls(); n != 3 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want 3", n)
	}

	r.serve(t, r.api.NewToken(true)) // the cluster's credential was rotated
	if _, err := l.Nodes(ctx, r.cluster); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	if n := r.configCalls(); n != 4 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want 4", n)
	}
}

// TestMovedEndpointFetchedAgain: the API server moved, the cached kubeconfig points to the old
// address, CloudStack's new one to the new address.
func TestMovedEndpointFetchedAgain(t *testing.T) {
	r := newRig(t, threeNodes...)
	old, err := kubetest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	oldConf, err := old.Kubeconfig(old.NewToken(true))
	if err != nil {
		t.Fatal(err)
	}
	old.SetNodes(threeNodes...)
	r.cs.SetKubeconfig(r.cluster.ID, oldConf)
	l := r.lister(t)
	if _, err := l.Nodes(context.Background(), r.cluster); err != nil {
		t.Fatal(err)
	}
	old.Close()
	r.serve(t, r.api.NewToken(true))
	if _, err := l.Nodes(context.Background(), r.cluster); err != nil {
		t.Fatalf("after the move: %v", err)
	}
	if len(r.api.Requests()) != 1 {
		t.Errorf("new API server got %d requests, want 1", len(r.api.Requests()))
	}
}

// TestKubeconfigDirWins checks a file in kubeconfig_dir is used instead of CloudStack's
// kubeconfig, read again when replaced, and that CloudStack is asked for clusters without one.
func TestKubeconfigDirWins(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, threeNodes...)
	dir := t.TempDir()
	l := r.lister(t, func(o *Options) { o.KubeconfigDir = dir })
	write := func(cred kubetest.Credential) {
		data, err := r.api.Kubeconfig(cred)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.cluster.ID+".conf"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(r.api.NewToken(true))
	if _, err := l.Nodes(ctx, r.cluster); err != nil {
		t.Fatal(err)
	}
	if n := r.configCalls(); n != 0 {
		t.Fatalf("getKubernetesClusterConfig called %d times with a file present", n)
	}
	r.api.Revoke()
	write(r.api.NewToken(true))
	if _, err := l.Nodes(ctx, r.cluster); err != nil {
		t.Fatalf("replaced file not used: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, r.cluster.ID+".conf")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Nodes(ctx, r.cluster); Reason(err) != reasonKubeconfig {
		t.Fatalf("no file and CloudStack has none: reason %q (%v), want %q", Reason(err), err, reasonKubeconfig)
	}
	if n := r.configCalls(); n != 1 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want 1", n)
	}
}

// TestSameUUIDs counts only nodes whose systemUUID is their own VM's uuid, in any case.
func TestSameUUIDs(t *testing.T) {
	vms := []collector.MappedVM{{ID: "AA-1", Name: "c-control-1"}, {ID: "bb-2", Name: "c-node-2"}, {Name: "c-node-3"}}
	nodes := []Node{{Name: "c-control-1", SystemUUID: "aa-1"}, {Name: "c-node-2", SystemUUID: "AA-1"}, {Name: "c-node-3"}, {Name: "stranger", SystemUUID: "bb-2"}}
	if got := sameUUIDs(nodes, vms); got != 1 {
		t.Fatalf("sameUUIDs = %d, want 1", got)
	}
}

// TestIdleClientsDropped: a cluster's cached kubeconfig goes after a day unused, so a cluster
// gone from CloudStack does not keep its credential in memory; the next list asks again.
func TestIdleClientsDropped(t *testing.T) {
	r := newRig(t, threeNodes...)
	r.serve(t, r.api.NewToken(true))
	now := time.Date(2026, 6, 5, 8, 0, 0, 0, time.UTC)
	l := r.lister(t, func(o *Options) { o.Now = func() time.Time { return now } })
	for _, step := range []time.Duration{0, time.Hour, 25 * time.Hour} {
		now = now.Add(step)
		if _, err := l.Nodes(context.Background(), r.cluster); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.configCalls(); n != 2 {
		t.Fatalf("getKubernetesClusterConfig called %d times, want 2 (once more after a day unused)", n)
	}
}
