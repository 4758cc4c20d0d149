package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"strings"
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
	// members are the last update's chunks, encoded, for the next (expositionmembers.go).
	members *members
}

// encodedChecks are the check's metric families, gzip-compressed, in each format offered; the
// OpenMetrics body has no "# EOF" yet, since the live metrics follow it.
type encodedChecks struct {
	text, openMetrics []byte
	snapshot          *collector.Snapshot // the snapshot they encode
}

// gzipWriters keeps compressors for the scrapes' live part, so that a scrape does not allocate
// one (several hundred kilobytes). Unlike a sync.Pool it is not emptied by a garbage collection,
// which during a large cycle runs every second or two: there a pool would hand out a new
// compressor to nearly every scrape, and the allocation would make the scrape help the
// collector mark. Two cover Prometheus servers scraping at once; a third scrape makes its own.
var gzipWriters = make(chan *gzip.Writer, 2)

func getGzip(w io.Writer) *gzip.Writer {
	select {
	case gz := <-gzipWriters:
		gz.Reset(w)
		return gz
	default:
		gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		return gz
	}
}

func putGzip(gz *gzip.Writer) {
	gz.Reset(io.Discard) // keep no reference to the finished response
	select {
	case gzipWriters <- gz:
	default:
	}
}

var (
	formatText        = expfmt.NewFormat(expfmt.TypeTextPlain)
	formatOpenMetrics = expfmt.NewFormat(expfmt.TypeOpenMetrics)
)

// update encodes the check metrics of a new snapshot, one chunk of a family at a time (see
// collector.Metrics.Chunks), so that the metrics of ten thousand clusters are never all built
// at once.
func (x *exposition) update(s *collector.Snapshot) {
	if x.members == nil {
		x.members = newMembers()
	}
	text, om, err := x.members.encode(collector.NewMetrics(func() *collector.Snapshot { return s }).Chunks(chunkClusters))
	if err != nil {
		x.logger.Error("Could not encode the check metrics", "err", err) // only a bug can do this
		return
	}
	x.checks.Store(&encodedChecks{text: text, openMetrics: om, snapshot: s})
}

// chunkClusters is how many clusters' series of one family are built at once.
const chunkClusters = 1000

// withoutHeader drops the comment lines (HELP, TYPE, UNIT) that open an encoded family.
func withoutHeader(b []byte) []byte {
	for bytes.HasPrefix(b, []byte("# ")) {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	return b
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
		gz := getGzip(w)
		_, _ = gz.Write(tail.Bytes())
		_ = gz.Close()
		putGzip(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(cached))
	if err == nil {
		_, _ = io.Copy(w, zr)
	}
	_, _ = w.Write(tail.Bytes())
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
