package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestStateSince: a skipped cluster says since when it has been in its state, so since when it
// has been skipped; a cluster the exporter knows no time of leaves the key out.
func TestStateSince(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	r := New(&collector.Snapshot{Clusters: []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: "k1", Name: "busy", State: "Scaling"}, StateSince: since},
		{Cluster: collector.Cluster{ID: "k2", Name: "fresh", State: "Running"}, Checked: true},
	}})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"state_since": "2026-12-02T08:00:00Z"`) {
		t.Errorf("no state_since of the skipped cluster in\n%s", buf.String())
	}
	if n := strings.Count(buf.String(), `"state_since"`); n != 1 {
		t.Errorf("%d state_since keys, want 1 (none without a time)", n)
	}
}
