package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Scrapes at once each get a whole gzip answer, whether they reuse a kept compressor or make
// their own, and no more compressors are kept than the pool holds.
func TestConcurrentGzipScrapes(t *testing.T) {
	e := expositionExporter()
	scrape := func() (string, error) {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Accept", "text/plain")
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		e.exposition.ServeHTTP(rec, req)
		zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			return "", err
		}
		body, err := io.ReadAll(zr)
		return string(body), err
	}
	const n = 6
	bodies := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); bodies[i], errs[i] = scrape() }()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || len(bodies[i]) == 0 {
			t.Fatalf("scrape %d: %v (%d bytes)", i, errs[i], len(bodies[i]))
		}
		if !bytes.Contains([]byte(bodies[i]), []byte("cks_drift_cycles_total")) || !bytes.Contains([]byte(bodies[i]), []byte("go_goroutines")) {
			t.Errorf("scrape %d lacks the check or the live metrics", i)
		}
	}
	if kept := len(gzipWriters); kept > cap(gzipWriters) || kept == 0 {
		t.Errorf("%d compressors kept, want 1 to %d", kept, cap(gzipWriters))
	}
}
