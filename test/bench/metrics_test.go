package main

import (
	"bytes"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// TestMetricsAnswer reads an OpenMetrics answer, as the benchmark scrapes it: the cycle counter
// found by its line.
func TestMetricsAnswer(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewPedanticRegistry()
	cycles := prometheus.NewCounter(prometheus.CounterOpts{Name: "cks_drift_cycles_total", Help: "c"})
	cycles.Add(2)
	finding := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cks_drift_finding", Help: "f"}, []string{"vm"})
	finding.WithLabelValues("a").Set(1)
	finding.WithLabelValues("b").Set(1)
	findings := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cks_drift_findings", Help: "f"}, []string{"kind"})
	findings.WithLabelValues("x").Set(1)
	reg.MustRegister(cycles, finding, findings)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeOpenMetrics))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	_ = enc.(expfmt.Closer).Close()
	body := b.Bytes()
	m := metrics{body: body}
	if got := m.cycles(); got != 2 {
		t.Errorf("cycles() = %v, want 2\n%s", got, body)
	}
	if got := (metrics{body: []byte("cks_drift_cycles_total_x 3\n")}).cycles(); !math.IsNaN(got) {
		t.Errorf("cycles() of another metric = %v, want NaN", got)
	}
}

// TestSeriesAt reads the series of an exporter's /metrics with the Go collector in it, whose
// OpenMetrics answer the text parser refuses (go_memstats_alloc_bytes twice).
func TestSeriesAt(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewPedanticRegistry()
	finding := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cks_drift_finding", Help: "f"}, []string{"kind", "vm"})
	finding.WithLabelValues("unmapped_vm", "a").Set(1)
	finding.WithLabelValues("vm_not_a_node", "b").Set(1)
	finding.WithLabelValues("vm_not_a_node", "c").Set(1)
	reg.MustRegister(finding, collectors.NewGoCollector())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		families, err := reg.Gather()
		if err != nil {
			t.Error(err)
		}
		format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...)
		w.Header().Set("Content-Type", string(format))
		enc := expfmt.NewEncoder(w, format)
		for _, mf := range families {
			_ = enc.Encode(mf)
		}
		if c, ok := enc.(expfmt.Closer); ok {
			_ = c.Close()
		}
	}))
	defer srv.Close()
	if _, _, err := scrape(srv.URL); err != nil {
		t.Fatal(err)
	}
	series, err := seriesAt(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := series["go_memstats_alloc_bytes"]; !ok {
		t.Error("go_memstats_alloc_bytes not read")
	}
	got, want := findingsByKind(series), map[string]int{"unmapped_vm": 1, "vm_not_a_node": 2}
	if !maps.Equal(got, want) {
		t.Errorf("findingsByKind = %v, want %v", got, want)
	}
	if err := sameFindings(got, want); err != nil {
		t.Error(err)
	}
	if err := sameFindings(got, map[string]int{"unmapped_vm": 1, "vm_not_a_node": 1}); err == nil {
		t.Error("sameFindings accepted a false finding")
	}
	if err := sameFindings(map[string]int{"node_ghost": 1}, nil); err == nil {
		t.Error("sameFindings accepted a kind of no drift")
	}
}

func TestSumGrowth(t *testing.T) {
	cold := map[string]float64{`x_sum{command="a"}`: 1, `x_sum{command="b"}`: 2, `y_sum{command="a"}`: 5}
	warm := map[string]float64{`x_sum{command="a"}`: 3, `x_sum{command="b"}`: 2.5, `x_sum{command="c"}`: 4, `y_sum{command="a"}`: 50}
	if got := sumGrowth(cold, warm, "x_sum{"); got != 6.5 {
		t.Errorf("sumGrowth = %v, want 6.5 (2 + 0.5 + 4, y left out)", got)
	}
}
