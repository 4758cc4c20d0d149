package exporter

// Benchmarks of what a scrape costs the exporter at the scale benchmark's sizes: the whole
// /metrics answer (the check metrics encoded once per snapshot, plus the live Go, process and
// reload metrics gathered and encoded per scrape), what publishing a snapshot costs (the check
// metrics' collection and encoding, once per cycle) and /findings, for N clusters.
//
//	go test -run '^$' -bench . -benchmem ./exporter/

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// benchSnapshot is the snapshot after a cycle over n clusters of 3 VMs (and 20,000 VMs of no
// cluster), with the drift of collector's benchmarks: every 50th cluster misses a map row, every
// 97th has a VM that is not a node, every 33rd control node was unreachable.
func benchSnapshot(n int) *collector.Snapshot {
	now := time.Date(2026, 6, 5, 20, 0, 0, 0, time.UTC)
	created := now.Add(-48 * time.Hour)
	inv := collector.Inventory{}
	nodes := make(map[string]collector.NodeList, n)
	for i := range n {
		name := fmt.Sprintf("cluster-%05d", i+1)
		account := fmt.Sprintf("account-%03d", i%100)
		c := collector.Cluster{ID: fmt.Sprintf("be000001-0000-4000-8000-%012x", i+1), Name: name, State: "Running", ClusterType: "CloudManaged",
			ZoneName: "zone1", Account: account, DomainID: "d1", Domain: "ROOT", Created: created, ControlNodes: 1, WorkerNodes: 2}
		var names []string
		for k, role := range []string{"control", "node", "node"} {
			v := collector.VM{ID: fmt.Sprintf("be000002-0000-4000-8000-%012x", 3*i+k+1), Name: fmt.Sprintf("%s-%s-%x", name, role, created.UnixMilli()+int64(k)),
				State: "Running", Account: account, DomainID: "d1", Created: created}
			inv.VMs = append(inv.VMs, v)
			if k != 2 || i%50 != 49 {
				c.Mapped = append(c.Mapped, collector.MappedVM{ID: v.ID, Name: v.Name, State: v.State, Created: created})
			}
			if k != 2 || i%97 != 96 {
				names = append(names, v.Name)
			}
		}
		inv.Clusters = append(inv.Clusters, c)
		nodes[c.ID] = collector.NodesRead(names, nil)
		if i%33 == 32 {
			nodes[c.ID] = collector.NodeList{Err: "timeout"}
		}
	}
	for j := range 20000 {
		inv.VMs = append(inv.VMs, collector.VM{ID: fmt.Sprintf("be000003-0000-4000-8000-%012x", j+1), Name: fmt.Sprintf("app-%06d", j+1),
			State: "Running", Account: fmt.Sprintf("account-%03d", j%100), DomainID: "d1", Created: created})
	}
	return &collector.Snapshot{Start: now.Add(-40 * time.Second), End: now, Success: true, Enabled: true, LastSuccess: now, Cycles: 12,
		Clusters:         collector.Evaluate(nil, inv, nodes, now, 15*time.Minute),
		NodeListFailures: map[string]uint64{"timeout": uint64(n / 33)}}
}

// benchExporter is an exporter that serves snap, without configuration or back ends.
func benchExporter(b *testing.B, snap *collector.Snapshot) http.Handler {
	b.Helper()
	e := &Exporter{logger: slog.New(slog.DiscardHandler), now: time.Now}
	e.live = e.newLiveRegistry()
	e.exposition = &exposition{live: e.live, logger: e.logger}
	e.publish(snap)
	e.ready.Store(true)
	h, err := e.handler("/metrics")
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// discard is a ResponseWriter that keeps nothing but the status and the size.
type discard struct {
	header http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) WriteHeader(status int)      { d.status = status }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// BenchmarkMetricsHandler is one GET /metrics (op = one scrape), as Prometheus asks for it
// (OpenMetrics text, gzip) and as curl does (plain text format, no compression).
func BenchmarkMetricsHandler(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		h := benchExporter(b, benchSnapshot(n))
		for _, tc := range []struct{ name, accept, encoding string }{
			{"openmetrics-gzip", promAcceptHeader, "gzip"},
			{"text-plain", "", ""},
		} {
			b.Run("clusters="+strconv.Itoa(n)+"/"+tc.name, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
				if tc.accept != "" {
					req.Header.Set("Accept", tc.accept)
				}
				if tc.encoding != "" {
					req.Header.Set("Accept-Encoding", tc.encoding)
				}
				b.ReportAllocs()
				size := 0
				for b.Loop() {
					w := &discard{header: http.Header{}}
					h.ServeHTTP(w, req)
					if w.status != 0 && w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
					size = w.n
				}
				b.ReportMetric(float64(size), "bytes/scrape")
			})
		}
	}
}

// BenchmarkPublish is what publishing a snapshot costs (op = one cycle's publish): the check
// metrics are collected and encoded once per snapshot, in both text formats, gzip-compressed, so
// that a scrape only copies them.
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		snap := benchSnapshot(n)
		e := &Exporter{logger: slog.New(slog.DiscardHandler), now: time.Now}
		e.live = e.newLiveRegistry()
		e.exposition = &exposition{live: e.live, logger: e.logger}
		b.Run("clusters="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.publish(snap)
			}
		})
	}
}

// BenchmarkFindings is one GET /findings (op = one answer) of the same snapshots.
func BenchmarkFindings(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		h := benchExporter(b, benchSnapshot(n))
		b.Run("clusters="+strconv.Itoa(n), func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/findings", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(&discard{header: http.Header{}}, req)
			}
		})
	}
}

// promAcceptHeader is what Prometheus 2 sends when it prefers the text formats.
const promAcceptHeader = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
