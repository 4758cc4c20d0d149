package exporter

import (
	"bytes"
	"compress/gzip"
	"hash/maphash"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// members keeps, from one update of the exposition to the next, each chunk's encoding as a gzip
// member per format (collector.Metrics.Chunks: a family over up to chunkClusters clusters), by
// what it was built from (collector.Identity). A re-check changes a few clusters: the chunks of
// the others are not gathered, encoded and compressed again. At 10,000 clusters that work took
// about 0.4 s of CPU for every re-check, a second of a loaded machine between the announcement and
// /metrics. Written by update only (its callers hold the owner's lock).
type members struct {
	seed  maphash.Seed
	byKey map[memberKey]member
	gz    *gzip.Writer // reset for each member: a compressor is hundreds of kilobytes
	part  bytes.Buffer
}

// memberKey identifies a chunk's encoding: its family, what its series are built from, and
// whether an earlier chunk of the family has series (then its HELP and TYPE lines are left out).
type memberKey struct {
	family *prometheus.Desc
	key    uint64
	cont   bool
}

// member is a chunk's encoding: one gzip member per format, both empty when it has no series.
type member struct {
	text, openMetrics []byte
}

func newMembers() *members {
	gz, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return &members{seed: maphash.MakeSeed(), byKey: make(map[memberKey]member), gz: gz}
}

// encode encodes chunks in order into one body per format, each a run of gzip members, reusing
// the members of the last call for the chunks built from the same statuses, and keeps this
// call's for the next.
func (ms *members) encode(chunks []prometheus.Collector) (text, openMetrics []byte, err error) {
	var tb, ob bytes.Buffer
	next := make(map[memberKey]member, len(ms.byKey))
	var family *prometheus.Desc
	emitted := false // a chunk of family had series: its header is written
	for _, c := range chunks {
		id, _ := collector.Identity(c, ms.seed)
		if id.Family == nil || id.Family != family {
			family, emitted = id.Family, false
		}
		k := memberKey{family: id.Family, key: id.Key, cont: emitted}
		m, ok := ms.byKey[k]
		if !ok || !id.Reusable {
			if m, err = ms.build(c, emitted); err != nil {
				return nil, nil, err
			}
		}
		if id.Reusable {
			next[k] = m
		}
		tb.Write(m.text)
		ob.Write(m.openMetrics)
		emitted = emitted || len(m.text) > 0
	}
	ms.byKey = next
	return tb.Bytes(), ob.Bytes(), nil
}

// build gathers one chunk and encodes it in both formats, without the family's header when cont.
func (ms *members) build(c prometheus.Collector, cont bool) (member, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		return member{}, err
	}
	families, err := reg.Gather()
	if err != nil || len(families) == 0 {
		return member{}, err
	}
	var m member
	for _, out := range []struct {
		dst    *[]byte
		format expfmt.Format
	}{{&m.text, formatText}, {&m.openMetrics, formatOpenMetrics}} {
		var buf bytes.Buffer
		ms.gz.Reset(&buf)
		for _, f := range families {
			ms.part.Reset()
			if err := encode(&ms.part, []*dto.MetricFamily{f}, out.format, false); err != nil {
				return member{}, err
			}
			body := ms.part.Bytes()
			if cont {
				body = withoutHeader(body)
			}
			if _, err := ms.gz.Write(body); err != nil {
				return member{}, err
			}
		}
		if err := ms.gz.Close(); err != nil {
			return member{}, err
		}
		*out.dst = buf.Bytes()
	}
	return m, nil
}
