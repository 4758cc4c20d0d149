package notifier

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestStateFileLoads: a state file as this release writes it (testdata/state.json, every field
// of the document set) loads, and is written back unchanged: the state file is read by the
// next release, so no field's JSON name may change.
func TestStateFileLoads(t *testing.T) {
	raw, err := os.ReadFile("testdata/state.json")
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{raw: raw}
	opts := Options{Enabled: true, Types: TypeRange{Min: 41000, Max: 41999}, MaxPerClusterPerDay: 10, Concurrency: 1}
	n, err := New(nil, store, opts, NewMetrics(nil), slog.New(slog.DiscardHandler), func() time.Time { return t0 })
	if err != nil {
		t.Fatal(err)
	}
	const id = "10000000-0000-4000-8000-000000000001"
	if first, ok := n.FirstSeen(id, collector.SideOperation, "stuck_in_operation"); !ok || !first.Equal(t0.Add(-2*time.Hour)) {
		t.Errorf("FirstSeen = %v, %v; want %v", first, ok, t0.Add(-2*time.Hour))
	}
	cause := collector.Cause{EventID: "40000000-0000-4000-8000-000000000001", Type: "VM.CREATE", Description: "Deploying Vm",
		Username: "bob", Account: "acme", Created: t0.Add(-6 * time.Minute)}
	if got, ok := n.Cause(id, collector.SideVM, "unmapped_vm:30000000-0000-4000-8000-000000000002"); !ok || got != cause {
		t.Errorf("Cause = %+v, %v; want %+v", got, ok, cause)
	}
	// A finding announced before causes were kept has none.
	if got, ok := n.Cause(id, collector.SideVM, "unmapped_vm:30000000-0000-4000-8000-000000000003"); ok {
		t.Errorf("Cause of a finding without one = %+v", got)
	}
	if since, ok := n.StateSince(id, "Scaling"); !ok || !since.Equal(t0.Add(-2*time.Hour)) {
		t.Errorf("StateSince = %v, %v; want %v", since, ok, t0.Add(-2*time.Hour))
	}
	if !n.save() {
		t.Fatal("the state was not saved")
	}
	var want bytes.Buffer
	if err := json.Compact(&want, raw); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(store.raw, want.Bytes()) {
		t.Errorf("written back as\n%s\nwant\n%s", store.raw, want.Bytes())
	}
}
