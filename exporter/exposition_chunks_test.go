package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The check metrics encoded chunk by chunk (a family's clusters a few at a time) are the same
// exposition, byte for byte, as the whole collection gathered and encoded at once: families in
// the same order, each with one HELP and TYPE, series sorted as a registry sorts them (cluster_info
// by account first), in both formats.
func TestChunksMatchCollect(t *testing.T) {
	t.Parallel()
	snap := benchSnapshot(260) // 100 accounts, findings of three kinds, unreachable nodes
	m := collector.NewMetrics(func() *collector.Snapshot { return snap })
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7, 100, 1000} {
		text, om, err := encodeChecks(m.Chunks(size))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			got     []byte
			compare func() string
		}{
			{"text", text, func() string { var b bytes.Buffer; _ = encode(&b, families, formatText, false); return b.String() }},
			{"openmetrics", om, func() string {
				var b bytes.Buffer
				_ = encode(&b, families, formatOpenMetrics, false)
				return b.String()
			}},
		} {
			zr, err := gzip.NewReader(bytes.NewReader(c.got))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.compare(), string(got)); diff != "" {
				t.Errorf("chunks of %d clusters, %s (-whole +chunked):\n%s", size, c.name, diff)
			}
		}
	}
}

// A chunk's header lines are dropped when its family continued from the chunk before; nothing
// else is.
func TestWithoutHeader(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"# HELP a x\n# TYPE a gauge\na 1\na{b=\"# c\"} 2\n":   "a 1\na{b=\"# c\"} 2\n",
		"# HELP a x\n# TYPE a gauge\n# UNIT a seconds\na 1\n": "a 1\n",
		"a 1\n":      "a 1\n",
		"# HELP a x": "",
		"":           "",
	} {
		if got := string(withoutHeader([]byte(in))); got != want {
			t.Errorf("withoutHeader(%q) = %q, want %q", in, got, want)
		}
	}
}
