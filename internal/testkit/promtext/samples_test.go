package promtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// TestSamples encodes a registry with every kind of metric, and label values that need escaping,
// in both text formats, and reads it back: each key is the sample's line as written.
func TestSamples(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewPedanticRegistry()
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "x", Help: "x"}, []string{"a", "b"})
	g.WithLabelValues(`b c`, "quote\" back\\ new\nline").Set(1.5)
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "y_total", Help: "y"})
	c.Add(2)
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "h", Help: "h", Buckets: []float64{0.5, 1}}, []string{"k"})
	h.WithLabelValues("v").Observe(0.7)
	s := prometheus.NewSummary(prometheus.SummaryOpts{Name: "s", Help: "s", Objectives: map[float64]float64{0.5: 0.05}})
	s.Observe(3)
	reg.MustRegister(g, c, h, s)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`x{a="b c",b="quote\" back\\ new\nline"}`: 1.5,
		`y_total`:                   2,
		`h_bucket{k="v",le="0.5"}`:  0,
		`h_bucket{k="v",le="1"}`:    1,
		`h_bucket{k="v",le="+Inf"}`: 1,
		`h_sum{k="v"}`:              0.7,
		`h_count{k="v"}`:            1,
		`s{quantile="0.5"}`:         3,
		`s_sum`:                     3,
		`s_count`:                   1,
	}
	for _, format := range []expfmt.Format{expfmt.NewFormat(expfmt.TypeTextPlain), expfmt.NewFormat(expfmt.TypeOpenMetrics)} {
		var b bytes.Buffer
		enc := expfmt.NewEncoder(&b, format)
		for _, mf := range families {
			if err := enc.Encode(mf); err != nil {
				t.Fatal(err)
			}
		}
		if cl, ok := enc.(expfmt.Closer); ok {
			_ = cl.Close()
		}
		got, err := Samples(b.String())
		if err != nil {
			t.Fatalf("%s: %v\n%s", format, err, b.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\n%s", format, diff, b.String())
		}
		// Every key is a line of the text format.
		if format == expfmt.NewFormat(expfmt.TypeTextPlain) {
			for k := range got {
				if !strings.Contains(b.String(), "\n"+k+" ") {
					t.Errorf("key %s is not a line of the exposition", k)
				}
			}
		}
	}
	if _, err := Samples("garbage\n"); err == nil {
		t.Fatal("a line that is not a sample was accepted")
	}
}
