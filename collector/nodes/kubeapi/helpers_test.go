package kubeapi

import (
	"context"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	inventoryapi "github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
)

// rig is one cluster: a fake CloudStack that knows it and a fake API server for it.
type rig struct {
	cs      *cloudstacktest.Server
	api     *kubetest.Server
	source  *inventoryapi.Source
	cluster collector.Cluster
}

func newRig(t *testing.T, nodes ...kubetest.Node) *rig {
	t.Helper()
	api, err := kubetest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	api.SetNodes(nodes...)
	cs, source, cluster := fakeCloud(t, "prod", api.URL())
	return &rig{cs: cs, api: api, source: source, cluster: cluster}
}

// fakeCloud starts a fake CloudStack with one Running cluster whose kubeconfig names endpoint,
// and an inventory source on it that hands out the cluster's kubeconfigs.
func fakeCloud(t *testing.T, name, endpoint string) (*cloudstacktest.Server, *inventoryapi.Source, collector.Cluster) {
	t.Helper()
	cs, source := emptyCloud(t)
	return cs, source, addCluster(cs, name, endpoint)
}

// emptyCloud starts a fake CloudStack without clusters and an inventory source on it.
func emptyCloud(t *testing.T) (*cloudstacktest.Server, *inventoryapi.Source) {
	t.Helper()
	cs := cloudstacktest.NewServer()
	t.Cleanup(cs.Close)
	source, err := inventoryapi.New(inventoryapi.Options{API: cloudstackapi.Options{Endpoint: cs.Endpoint(), APIKey: cs.APIKey(), SecretKey: cs.SecretKey(), Timeout: 5 * time.Second},
		PageSize: config.Defaults().CloudStack.PageSize})
	if err != nil {
		t.Fatal(err)
	}
	return cs, source
}

// addCluster adds a Running cluster whose kubeconfig names endpoint.
func addCluster(cs *cloudstacktest.Server, name, endpoint string) collector.Cluster {
	var c *cloudstacktest.Cluster
	cs.Update(func(w *cloudstacktest.World) {
		c = w.AddCluster(cloudstacktest.Cluster{Name: name, State: "Running", Endpoint: endpoint})
	})
	return collector.Cluster{ID: c.ID, Name: c.Name}
}

// serve makes CloudStack hand out a kubeconfig with cred for the rig's API server.
func (r *rig) serve(t *testing.T, cred kubetest.Credential) []byte {
	t.Helper()
	data, err := r.api.Kubeconfig(cred)
	if err != nil {
		t.Fatal(err)
	}
	r.cs.SetKubeconfig(r.cluster.ID, data)
	return data
}

// configCalls counts the getKubernetesClusterConfig calls CloudStack received.
func (r *rig) configCalls() int {
	n := 0
	for _, c := range r.cs.Calls() {
		if c.Command == "getKubernetesClusterConfig" {
			n++
		}
	}
	return n
}

func (r *rig) lister(t *testing.T, change ...func(*Options)) *Lister {
	t.Helper()
	o := Options{Timeout: 5 * time.Second, MaxNodes: 100, Configs: r.source,
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

// threeNodes is a small cluster as CKS names it.
var threeNodes = []kubetest.Node{
	{Name: "prod-control-18fd1d2a3b4", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000001", KubeletVersion: "v1.28.4"},
	{Name: "prod-node-18fd1d2a3c5", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000002", KubeletVersion: "v1.28.4"},
	{Name: "prod-node-18fd1d2a3d6", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000003", KubeletVersion: "v1.27.9"},
}

// heapPeak keeps the largest heap seen every 2 ms while a list runs (the fakes run in the same
// process, so their buffers count too).
type heapPeak struct {
	before, peak uint64
	stop         chan struct{}
	done         chan struct{}
}

// watchHeap collects garbage, takes the heap's size as the baseline and samples it until stopped.
func watchHeap() *heapPeak {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &heapPeak{before: ms.HeapAlloc, peak: ms.HeapAlloc, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				h.peak = max(h.peak, ms.HeapAlloc)
			}
		}
	}()
	return h
}

// grown stops the sampling and returns how far the heap grew above the baseline, at most.
func (h *heapPeak) grown() int64 {
	close(h.stop)
	<-h.done
	return int64(h.peak) - int64(h.before)
}

// listWithinHeap lists r's cluster at max_nodes 1,000 and checks that its three nodes are read
// and that the heap grew by at most 12 MiB while what was read.
func listWithinHeap(t *testing.T, r *rig, what string) {
	t.Helper()
	h := watchHeap()
	nodes, err := r.lister(t, func(o *Options) { o.Timeout, o.MaxNodes = 2*time.Minute, 1000 }).Nodes(context.Background(), r.cluster)
	grown := h.grown()
	if err != nil || len(nodes) != 3 {
		t.Fatalf("Nodes = %v, %v, want the three nodes", nodes, err)
	}
	t.Logf("heap grown by %.1f MiB at most", float64(grown)/(1<<20))
	if grown > 12<<20 {
		t.Errorf("the heap grew by %d MiB while %s was read, want at most 12", grown>>20, what)
	}
}
