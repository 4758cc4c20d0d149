package exporter

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// expositionExporter is an exporter with only its registries, serving expositionSnapshot.
func expositionExporter() *Exporter {
	e := &Exporter{logger: slog.New(slog.DiscardHandler)}
	e.live = e.newLiveRegistry()
	e.exposition = &exposition{live: e.live, logger: e.logger}
	e.publish(expositionSnapshot())
	return e
}

// TestExpositionMatchesGather: the cached bodies plus the live metrics say exactly what a
// registry of the same snapshot would, in every format and encoding Prometheus or curl asks for.
func TestExpositionMatchesGather(t *testing.T) {
	e := expositionExporter()
	families, err := e.gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, accept, encoding string
		format                 expfmt.Format
	}{
		{"prometheus", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", "gzip", formatOpenMetrics},
		{"openmetrics plain", "application/openmetrics-text;version=1.0.0", "", formatOpenMetrics},
		{"text gzip", "text/plain", "gzip, deflate", formatText},
		{"curl", "*/*", "", formatText},
		{"gzip refused", "", "gzip;q=0", formatText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			req.Header.Set("Accept", tc.accept)
			req.Header.Set("Accept-Encoding", tc.encoding)
			rec := httptest.NewRecorder()
			e.exposition.ServeHTTP(rec, req)
			body := rec.Body.Bytes()
			if rec.Header().Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body)) // reads every member
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			} else if strings.Contains(tc.encoding, "gzip") && !strings.Contains(tc.encoding, "q=0") {
				t.Fatal("gzip accepted but not used")
			}
			if got := rec.Header().Get("Content-Type"); got != string(tc.format) {
				t.Fatalf("Content-Type %q, want %q", got, tc.format)
			}
			var want bytes.Buffer
			if err := encode(&want, families, tc.format, tc.format == formatOpenMetrics); err != nil {
				t.Fatal(err)
			}
			got, exp := lines(string(body)), lines(want.String())
			if !slices.Equal(got, exp) {
				t.Fatalf("exposition differs from the registry's:\n got %d lines\nwant %d lines", len(got), len(exp))
			}
			if tc.format == formatOpenMetrics && !strings.HasSuffix(string(body), "# EOF\n") {
				t.Fatal("OpenMetrics body does not end with # EOF")
			}
		})
	}
}

// TestExpositionPromtool: promtool accepts and lints the text exposition.
func TestExpositionPromtool(t *testing.T) {
	promtool := tooltest.Require(t, "promtool", "apt-get install prometheus")
	e := expositionExporter()
	rec := httptest.NewRecorder()
	e.exposition.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = rec.Body
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// lines returns the sorted lines of an exposition, without the process metrics that change
// between two gatherings.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "process_") || strings.Contains(l, "go_") {
			continue
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

func expositionSnapshot() *collector.Snapshot {
	now := time.Now()
	s := &collector.Snapshot{Start: now.Add(-time.Second), End: now, Success: true, Enabled: true, LastSuccess: now, Cycles: 2,
		NodeListFailures: map[string]uint64{"timeout": 1}}
	for i := range 50 {
		c := collector.ClusterStatus{Cluster: collector.Cluster{ID: fmt.Sprintf("k%d", i), Name: fmt.Sprintf("c%d", i), State: "Running"},
			Checked: true, Nodes: collector.NodeList{Err: "timeout"}}
		if i%7 != 0 {
			c.Nodes = collector.NodesRead(nil, nil)
		}
		if i%5 == 0 {
			c.Add(collector.Finding{Kind: collector.KindUnmappedVM, VMID: fmt.Sprintf("v%d", i), VMName: fmt.Sprintf("c%d-node-1", i)})
		}
		s.Clusters = append(s.Clusters, c)
	}
	return s
}
