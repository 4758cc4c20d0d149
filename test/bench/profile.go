package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Profiles of the exporter (-profile DIR): the benchmark builds it with -tags benchprofile
// (cmd/cks-drift-exporter/pprof.go), which serves net/http/pprof on a loopback port of its own,
// and takes for each world, in DIR/clusters-N-cM/:
//
//   - cpu-warm-NNN.pb.gz: the CPU profile of the warm cycle, in slices of cpuSlice from
//     POST /-/check until the cycle is published (`go tool pprof -top DIR/.../cpu-warm-*` merges
//     them);
//   - heap-peak.pb.gz: the heap profile taken when the paced scrapes saw the largest
//     go_memstats_heap_inuse_bytes of the warm cycle so far (a heap profile shows the heap as of
//     the last garbage collection, so this is the live heap near the peak);
//   - heap-after-warm.pb.gz: the heap after the warm cycle, after a garbage collection: what the
//     exporter keeps between cycles (the snapshot, the state, the caches).
//
// Profiling costs the exporter some CPU (the sampling, the profiles' encoding): the figures of a
// run with -profile are not the benchmark's figures.

const cpuSlice = 10 * time.Second

// profiler takes the profiles of one exporter process.
type profiler struct {
	addr string // the pprof listener's host:port
	dir  string

	cpuDone chan struct{}
	cpuWG   sync.WaitGroup
	cpuErr  error

	peakInuse float64
	lastHeap  time.Time
}

// newProfiler picks a loopback port for the exporter's pprof listener; env is what the exporter's
// environment needs. A nil profiler (no -profile) does nothing.
func newProfiler(root string, clusters, concurrency int) (*profiler, []string, error) {
	if root == "" {
		return nil, nil, nil
	}
	dir := filepath.Join(root, fmt.Sprintf("clusters-%d-c%d", clusters, concurrency))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	return &profiler{addr: addr, dir: dir}, []string{"CKS_DRIFT_PPROF_ADDRESS=" + addr}, nil
}

// startCPU takes CPU profiles in slices until stopCPU.
func (p *profiler) startCPU(ctx context.Context) {
	if p == nil {
		return
	}
	p.cpuDone = make(chan struct{})
	p.cpuWG.Add(1)
	go func() {
		defer p.cpuWG.Done()
		for i := 0; ; i++ {
			select {
			case <-p.cpuDone:
				return
			case <-ctx.Done():
				return
			default:
			}
			path := filepath.Join(p.dir, fmt.Sprintf("cpu-warm-%03d.pb.gz", i))
			if err := p.fetch(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(cpuSlice/time.Second)), path); err != nil {
				p.cpuErr = err
				return
			}
		}
	}()
}

// stopCPU waits for the slice under way (at most cpuSlice) and returns the first error.
func (p *profiler) stopCPU() error {
	if p == nil || p.cpuDone == nil {
		return nil
	}
	close(p.cpuDone)
	p.cpuWG.Wait()
	return p.cpuErr
}

// sawHeap takes a heap profile when a scrape shows a new largest heap in use, at most every 2 s.
func (p *profiler) sawHeap(ctx context.Context, m metrics) error {
	if p == nil {
		return nil
	}
	inuse := m.value("go_memstats_heap_inuse_bytes")
	if !(inuse > p.peakInuse) || time.Since(p.lastHeap) < 2*time.Second {
		return nil
	}
	p.peakInuse, p.lastHeap = inuse, time.Now()
	return p.fetch(ctx, "/debug/pprof/heap", filepath.Join(p.dir, "heap-peak.pb.gz"))
}

// afterCycle takes the heap profile after a garbage collection.
func (p *profiler) afterCycle(ctx context.Context) error {
	if p == nil {
		return nil
	}
	logf("   profiles in %s (heap in use at the peak profile %.1f MiB)", p.dir, p.peakInuse/(1<<20))
	return p.fetch(ctx, "/debug/pprof/heap?gc=1", filepath.Join(p.dir, "heap-after-warm.pb.gz"))
}

func (p *profiler) fetch(ctx context.Context, path, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", path, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
