package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestMembersReusedOnlyWhereUnchanged: after a re-check changes one cluster, the exposition that
// reuses the last update's unchanged chunks is the same, in both formats, as one encoded afresh;
// so is it after a cluster is gone, after the finding series limit changes, and for clusters
// never read (no ReadAt), which are never reused.
func TestMembersReusedOnlyWhereUnchanged(t *testing.T) {
	t.Parallel()
	read := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	snap := benchSnapshot(260)
	unread := *snap // statuses with no read time, as tests and the first snapshot make them
	unread.Clusters = append([]collector.ClusterStatus(nil), snap.Clusters...)
	for i := range snap.Clusters {
		snap.Clusters[i].ReadAt = read
	}
	ms := map[int]*members{7: newMembers(), 100: newMembers()} // one per chunk size, as an exposition has
	check := func(what string, s *collector.Snapshot) {
		t.Helper()
		for _, size := range []int{7, 100} {
			m := collector.NewMetrics(func() *collector.Snapshot { return s })
			text, om, err := ms[size].encode(m.Chunks(size))
			if err != nil {
				t.Fatal(err)
			}
			wantText, wantOM, err := encodeChecks(m.Chunks(size))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(gunzip(t, wantText), gunzip(t, text)); diff != "" {
				t.Errorf("%s, chunks of %d, text (-afresh +reused):\n%s", what, size, diff)
			}
			if diff := cmp.Diff(gunzip(t, wantOM), gunzip(t, om)); diff != "" {
				t.Errorf("%s, chunks of %d, openmetrics (-afresh +reused):\n%s", what, size, diff)
			}
		}
	}
	check("the first snapshot", snap)

	// A re-check: one cluster read again, now with two findings it did not have.
	next := *snap
	next.Clusters = append([]collector.ClusterStatus(nil), snap.Clusters...)
	c := next.Clusters[3].With(collector.Finding{Kind: collector.KindUnmappedVM, VMID: "vm-x", VMName: "cluster-00004-node-x", FirstSeen: read},
		collector.Finding{Kind: collector.KindUnmappedVM, VMID: "vm-z", VMName: "cluster-00004-node-z", FirstSeen: read.Add(time.Second)})
	c.ReadAt = read.Add(time.Minute)
	next.Clusters[3] = c
	check("a re-check", &next)

	gone := next
	gone.Clusters = append(append([]collector.ClusterStatus(nil), next.Clusters[:10]...), next.Clusters[11:]...)
	check("a cluster gone", &gone)

	limited := gone
	limited.FindingSeriesLimit = 1
	check("a finding series limit", &limited)

	check("clusters never read", &unread)
	changed := unread
	changed.Clusters = append([]collector.ClusterStatus(nil), unread.Clusters...)
	changed.Clusters[3] = unread.Clusters[3].With(collector.Finding{Kind: collector.KindUnmappedVM, VMID: "vm-y", VMName: "y", FirstSeen: read})
	check("a change of a cluster never read", &changed)
}

// encodeChecks encodes chunks afresh (members.encode without a last call to reuse).
func encodeChecks(chunks []prometheus.Collector) (text, openMetrics []byte, err error) {
	return newMembers().encode(chunks)
}

// gunzip returns the text of a run of gzip members.
func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
