// Package promtext reads an exposition, with prometheus/common's text parser, into its samples
// keyed the way they are written, for tests and benchmarks that follow /metrics.
package promtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Samples returns the samples of a text exposition (the Prometheus text format, or OpenMetrics
// text without exemplars) as "name{labels}" -> value, each key as the sample's line spells it:
// labels in the order written, a histogram's le and a summary's quantile last. Text that does
// not parse is an error.
func Samples(body string) (map[string]float64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse exposition: %w", err)
	}
	out := make(map[string]float64)
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := m.GetLabel()
			switch {
			case m.Summary != nil:
				s := m.GetSummary()
				for _, q := range s.GetQuantile() {
					out[key(name, labels, "quantile", q.GetQuantile())] = q.GetValue()
				}
				out[key(name+"_sum", labels, "", 0)] = s.GetSampleSum()
				out[key(name+"_count", labels, "", 0)] = float64(s.GetSampleCount())
			case m.Histogram != nil:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					out[key(name+"_bucket", labels, "le", b.GetUpperBound())] = float64(b.GetCumulativeCount())
				}
				out[key(name+"_sum", labels, "", 0)] = h.GetSampleSum()
				out[key(name+"_count", labels, "", 0)] = float64(h.GetSampleCount())
			case m.Counter != nil:
				out[key(name, labels, "", 0)] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key(name, labels, "", 0)] = m.GetGauge().GetValue()
			default:
				out[key(name, labels, "", 0)] = m.GetUntyped().GetValue()
			}
		}
	}
	return out, nil
}

// key spells a sample's series as its exposition line does; extra, when set, is the bucket's or
// quantile's label, written last.
func key(name string, labels []*dto.LabelPair, extra string, bound float64) string {
	if len(labels) == 0 && extra == "" {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.GetName())
		b.WriteString(`="`)
		b.WriteString(escape(l.GetValue()))
		b.WriteByte('"')
	}
	if extra != "" {
		if len(labels) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extra)
		b.WriteString(`="`)
		b.WriteString(formatFloat(bound))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escape(v string) string { return escaper.Replace(v) }

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
