package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// TestMetricsAnswer reads an OpenMetrics answer, as the benchmark scrapes it: the cycle counter
// found by its line, the series and the counts by the text parser.
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
	series, err := m.series()
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 4 || count(series, "cks_drift_finding", 1) != 2 || count(series, "cks_drift_findings", 1) != 1 {
		t.Errorf("series %v", series)
	}
}
