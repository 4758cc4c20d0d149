package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// gateLister holds every listing until the test opens the gate, counting listings in flight.
type gateLister struct {
	mu       sync.Mutex
	inFlight int
	peak     int
	calls    map[string]int
	started  chan string
	gate     chan struct{}
}

func (g *gateLister) ListNodes(ctx context.Context, c collector.Cluster) ([]collector.Node, error) {
	g.mu.Lock()
	g.inFlight++
	g.peak = max(g.peak, g.inFlight)
	g.calls[c.ID]++
	g.mu.Unlock()
	g.started <- c.ID
	defer func() { g.mu.Lock(); g.inFlight--; g.mu.Unlock() }()
	select {
	case <-g.gate:
		return []collector.Node{{Name: c.Name + "-control"}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func clustersN(n int) []collector.Cluster {
	out := make([]collector.Cluster, n)
	for i := range out {
		out[i] = collector.Cluster{ID: fmt.Sprintf("c-%03d", i), Name: fmt.Sprintf("k%03d", i)}
	}
	return out
}

// listNodes lists every cluster once, in order, with exactly concurrency listings in flight while
// there is work for them, and never more.
func TestListNodesBoundedWorkers(t *testing.T) {
	t.Parallel()
	const n, concurrency = 50, 7
	g := &gateLister{calls: make(map[string]int), started: make(chan string, n), gate: make(chan struct{})}
	listed := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "listed", Buckets: []float64{1}})
	done := make(chan map[string]collector.NodeList)
	go func() {
		done <- listNodes(t.Context(), clustersN(n), g, listed, concurrency, time.Hour, slog.New(slog.DiscardHandler))
	}()
	var first []string
	for range concurrency {
		first = append(first, <-g.started) // all workers busy, held at the gate
	}
	g.mu.Lock()
	if g.inFlight != concurrency {
		t.Errorf("%d listings in flight, want %d", g.inFlight, concurrency)
	}
	g.mu.Unlock()
	for _, id := range first {
		if id >= fmt.Sprintf("c-%03d", concurrency) {
			t.Errorf("cluster %s started before the first %d", id, concurrency)
		}
	}
	close(g.gate)
	out := <-done
	var m dto.Metric
	if err := listed.Write(&m); err != nil || m.GetHistogram().GetSampleCount() != n {
		t.Errorf("%d listings observed (%v), want %d", m.GetHistogram().GetSampleCount(), err, n)
	}
	if len(out) != n || g.peak != concurrency {
		t.Fatalf("%d results, peak %d in flight; want %d and %d", len(out), g.peak, n, concurrency)
	}
	for _, c := range clustersN(n) {
		if g.calls[c.ID] != 1 || len(out[c.ID].Names) != 1 || out[c.ID].Err != "" {
			t.Errorf("%s: listed %d times, result %+v", c.ID, g.calls[c.ID], out[c.ID])
		}
	}
}

// A cycle stopped by shutdown starts no further listing: the clusters not started are cancelled.
func TestListNodesStopsOnShutdown(t *testing.T) {
	t.Parallel()
	const n, concurrency = 20, 3
	g := &gateLister{calls: make(map[string]int), started: make(chan string, n), gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan map[string]collector.NodeList)
	go func() {
		done <- listNodes(ctx, clustersN(n), g, nil, concurrency, time.Hour, slog.New(slog.DiscardHandler))
	}()
	for range concurrency {
		<-g.started
	}
	cancel()
	out := <-done
	cancelled := 0
	for _, nl := range out {
		if nl.Err == "cancelled" {
			cancelled++
		}
	}
	if len(g.calls) != concurrency || cancelled != n-concurrency || len(out) != n {
		t.Errorf("%d listed, %d cancelled, %d results; want %d, %d, %d", len(g.calls), cancelled, len(out), concurrency, n-concurrency, n)
	}
}
