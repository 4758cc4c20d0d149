package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/promtext"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// Reading the exporter from outside, as Prometheus does: /metrics timed on the wire, its series,
// and the findings they hold against the world's drift.

// metrics is a /metrics answer, inflated.
type metrics struct {
	body []byte
	wire int // bytes on the wire (gzip)
}

// seriesAt GETs /metrics in the text format (not timed) and reads it with prometheus/common's
// text parser: every sample as "name{labels}" -> value. The timed scrapes ask for OpenMetrics,
// which the text parser cannot read: there a counter's family drops "_total", so the Go
// collector's go_memstats_alloc_bytes_total and go_memstats_alloc_bytes share a family name.
func seriesAt(base string) (map[string]float64, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return promtext.Samples(string(raw))
}

// cycles returns the value of cks_drift_cycles_total, or NaN.
func (m metrics) cycles() float64 { return m.value("cks_drift_cycles_total") }

// value returns the value of the sample name (without labels), or NaN. It finds the one line
// instead of parsing the answer: expfmt's text parser takes 1.8 s for 90,000 series (about the
// answer at 10,000 clusters) on a loaded two-core machine, and the paced scrapes during the warm
// cycle would take that CPU from the cycle they measure.
func (m metrics) value(sample string) float64 {
	name := sample + " "
	for rest := m.body; len(rest) > 0; {
		i := bytes.Index(rest, []byte(name))
		if i < 0 {
			break
		}
		if i == 0 || rest[i-1] == '\n' {
			line := rest[i+len(name):]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if f := strings.Fields(string(line)); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					return v
				}
			}
		}
		rest = rest[i+len(name):]
	}
	return math.NaN()
}

// healthyListingMean is the mean time of the warm cycle's node listings that ended before the
// timeout, from the histogram's difference between the two cycles: the sum less the listings
// that reached the timeout, counted at the timeout (a lower estimate of their share).
func healthyListingMean(cold, warm map[string]float64, timeout float64) float64 {
	const h = "cks_drift_node_list_duration_seconds"
	d := func(k string) float64 { return warm[k] - cold[k] }
	n := d(h + "_count")
	fast := d(fmt.Sprintf(`%s_bucket{le="%s"}`, h, strconv.FormatFloat(timeout/2, 'g', -1, 64)))
	if fast <= 0 || n <= 0 {
		return 0
	}
	return (d(h+"_sum") - (n-fast)*timeout) / fast
}

// sumGrowth is how much the samples whose name starts with prefix grew from cold to warm, summed.
func sumGrowth(cold, warm map[string]float64, prefix string) float64 {
	sum := 0.0
	for k, v := range warm {
		if strings.HasPrefix(k, prefix) {
			sum += v - cold[k]
		}
	}
	return sum
}

// findingsByKind counts the cks_drift_finding series by their kind label.
func findingsByKind(series map[string]float64) map[string]int {
	out := make(map[string]int)
	for k, v := range series {
		if v != 1 || !strings.HasPrefix(k, "cks_drift_finding{") {
			continue
		}
		if _, rest, ok := strings.Cut(k, `kind="`); ok {
			kind, _, _ := strings.Cut(rest, `"`)
			out[kind]++
		}
	}
	return out
}

// sameFindings compares the exporter's findings with the world's drift: a miss or a false
// finding at scale fails the run.
func sameFindings(got, want map[string]int) error {
	var diff, kinds []string
	for _, piece := range world.DriftKinds {
		if k := world.KindOf(piece); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	for _, k := range kinds {
		if got[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s: %d, want %d", k, got[k], want[k]))
		}
	}
	for k, n := range got {
		if n != 0 && !slices.Contains(kinds, k) {
			diff = append(diff, fmt.Sprintf("%s: %d, want 0", k, n))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("the exporter's findings are not the world's drift: %s", strings.Join(diff, "; "))
	}
	return nil
}

// count counts the samples of the family name whose value is v.
func count(series map[string]float64, name string, v float64) int {
	n := 0
	for k, x := range series {
		if x == v && (k == name || strings.HasPrefix(k, name+"{")) {
			n++
		}
	}
	return n
}

// promAccept is the Accept header of Prometheus 2 (text formats): OpenMetrics first.
const promAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

var scrapeClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}

// scrape GETs /metrics as Prometheus does (OpenMetrics text, gzip) and returns the answer and the
// time to its last byte on the wire; inflating it is not timed.
func scrape(base string) (metrics, time.Duration, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return metrics{}, 0, err
	}
	req.Header.Set("Accept", promAccept)
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return metrics{}, 0, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return metrics{}, d, err
	}
	if resp.StatusCode != http.StatusOK {
		return metrics{}, d, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	m := metrics{body: raw, wire: len(raw)}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return m, d, err
		}
		if m.body, err = io.ReadAll(zr); err != nil {
			return m, d, err
		}
	}
	return m, d, nil
}

func post(u string) error {
	resp, err := http.Post(u, "text/plain", nil)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST %s: %s %s", u, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
