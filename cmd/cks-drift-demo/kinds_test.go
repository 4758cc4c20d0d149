package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
)

// TestDemoKinds: the demo shows every declared kind or says why not, its findings are the ones
// shown (one --once cycle over the demo's cloud), and they stay within the demo's alert cap.
func TestDemoKinds(t *testing.T) {
	total := 0
	for _, k := range collector.Kinds {
		n, isShown := shown[k]
		_, isNot := notShown[k]
		if isShown == isNot {
			t.Errorf("kind %s: shown %v, listed as not shown %v; want exactly one", k, isShown, isNot)
		}
		total += n
	}
	if len(shown)+len(notShown) != len(collector.Kinds) {
		t.Errorf("shown and notShown name %d kinds, %d are declared", len(shown)+len(notShown), len(collector.Kinds))
	}
	if total > maxAlerts {
		t.Errorf("the demo has %d findings, past its alert cap of %d: make demo would print a capped summary", total, maxAlerts)
	}

	sim, err := newWorld(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dir := t.TempDir()
	cfgPath, err := sim.WriteFiles(dir, "", fmt.Sprintf("  max_alerts_per_cycle: %d\n", maxAlerts))
	if err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New(exporter.Options{ConfigFile: cfgPath, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var out bytes.Buffer
	e.RunOnce(context.Background(), &out, "json")
	var r struct {
		Summary struct {
			ByKind map[collector.Kind]int `json:"by_kind"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("--once json: %v\n%s", err, out.String())
	}
	for _, k := range collector.Kinds {
		if got := r.Summary.ByKind[k]; got != shown[k] {
			t.Errorf("the demo's cloud has %d findings of %s, shown says %d", got, k, shown[k])
		}
	}
}
