package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// exposition serves /metrics. The check's series (tens of thousands at a thousand clusters) are
// built as const metrics from each new snapshot once, by the loop, and kept encoded and
// compressed in both text formats; a scrape encodes only the exporter's own few live metrics
// (process, Go, reloads, webhooks) and appends them. Both parts are gzip members, which
// concatenate into one valid gzip stream. So a scrape costs the same at any cloud size and never
// waits for a cycle.
type exposition struct {
	live   prometheus.Gatherer
	logger *slog.Logger
	checks atomic.Pointer[encodedChecks]
}

// encodedChecks are the check's metric families, gzip-compressed, in each format offered; the
// OpenMetrics body has no "# EOF" yet, since the live metrics follow it.
type encodedChecks struct {
	text, openMetrics []byte
}

// gzipWriters saves a scrape the allocation of a compressor (about a megabyte).
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

var (
	formatText        = expfmt.NewFormat(expfmt.TypeTextPlain)
	formatOpenMetrics = expfmt.NewFormat(expfmt.TypeOpenMetrics)
)

// update encodes the check metrics of a new snapshot.
func (x *exposition) update(s *collector.Snapshot) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector.NewMetrics(func() *collector.Snapshot { return s }))
	families, err := reg.Gather()
	if err != nil {
		x.logger.Error("Could not build the check metrics", "err", err) // only a bug can do this
	}
	text, err1 := compress(families, formatText, false)
	om, err2 := compress(families, formatOpenMetrics, false)
	if err1 != nil || err2 != nil {
		x.logger.Error("Could not encode the check metrics", "err", firstErr(err1, err2))
		return
	}
	x.checks.Store(&encodedChecks{text: text, openMetrics: om})
}

func (x *exposition) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	checks := x.checks.Load()
	format, cached := formatText, checks.text
	if expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...).FormatType() == expfmt.TypeOpenMetrics {
		format, cached = formatOpenMetrics, checks.openMetrics
	}
	live, err := x.live.Gather()
	if err != nil {
		x.logger.Error("Error gathering the exporter's own metrics", "err", err) // served as far as gathered
	}
	var tail bytes.Buffer
	if err := encode(&tail, live, format, format == formatOpenMetrics); err != nil {
		http.Error(w, "encoding metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", string(format))
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(cached)
		gz := gzipWriters.Get().(*gzip.Writer)
		gz.Reset(w)
		_, _ = gz.Write(tail.Bytes())
		_ = gz.Close()
		gzipWriters.Put(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(cached))
	if err == nil {
		_, _ = io.Copy(w, zr)
	}
	_, _ = w.Write(tail.Bytes())
}

// compress encodes families as one gzip member.
func compress(families []*dto.MetricFamily, format expfmt.Format, final bool) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := encode(gz, families, format, final); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encode writes families; final ends an OpenMetrics exposition with "# EOF".
func encode(w io.Writer, families []*dto.MetricFamily, format expfmt.Format, final bool) error {
	enc := expfmt.NewEncoder(w, format)
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	if final {
		_, err := expfmt.FinalizeOpenMetrics(w)
		return err
	}
	return nil
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		return !strings.HasPrefix(q, "q=0") || strings.HasPrefix(q, "q=0.") && strings.Trim(q[4:], "0") != ""
	}
	return false
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
