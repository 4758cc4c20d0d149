package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// TestRequestsPerCycle runs one cycle of the exporter (--once, in process) over benchmark worlds
// of 20 and 300 clusters with a small page size, and checks that its API requests are exactly the
// pages of listPages, command by command: every list is paged cloud-wide, so the requests grow
// with the clusters only by pages, never by a call per cluster, and the benchmark's lower bound
// counts what the exporter reads. Its findings are the world's drift, every piece of DriftKinds.
func TestRequestsPerCycle(t *testing.T) {
	t.Parallel()
	o := options{pageSize: 50, includeProjects: true, concurrency: 8}
	for _, clusters := range []int{20, 300} {
		w, err := world.Build(world.Spec{Clusters: clusters, StrayVMs: 120, ProjectShare: 0.1, DriftShare: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		d := config.Defaults()
		// A long ssh.timeout: on a loaded machine no control node may time out, or its node side
		// would be missing from the findings.
		cfgPath, err := w.WriteFiles(t.TempDir(), world.Config{Concurrency: o.concurrency, SSHTimeout: 5 * time.Minute,
			PageSize: o.pageSize, IncludeProjects: o.includeProjects, HostKeyPolicy: string(d.SSH.HostKeyPolicy)})
		if err != nil {
			t.Fatal(err)
		}
		e, err := exporter.New(exporter.Options{ConfigFile: cfgPath})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		code := e.RunOnce(context.Background(), &out, "json")
		_ = e.Close()
		var r struct {
			Summary struct {
				ByKind map[string]int `json:"by_kind"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || code != exporter.ExitDrift {
			t.Fatalf("%d clusters: --once exit %d (%v)\n%s", clusters, code, err, out.String())
		}
		if err := sameFindings(r.Summary.ByKind, w.Counts.Findings); err != nil {
			t.Errorf("%d clusters: %v", clusters, err)
		}
		for _, piece := range world.DriftKinds {
			if w.Counts.Findings[world.KindOf(piece)] == 0 {
				t.Errorf("%d clusters: the world has no %s", clusters, piece)
			}
		}

		got, want := w.APICalls(), listPages(o, w.Counts)
		if !maps.Equal(got, want) {
			t.Errorf("%d clusters: requests by command %v, want the pages %v", clusters, got, want)
		}
		if notifier, _ := notifierCalls(got); len(notifier) != 0 {
			t.Errorf("%d clusters: the benchmark would count the inventory's %v as the notifier's (inventoryCommands)", clusters, notifier)
		}
		total := 0
		for _, n := range got {
			total += n
		}
		// One call per cluster would be at least as many calls as clusters.
		if total >= clusters {
			t.Errorf("%d clusters: %d requests in one cycle", clusters, total)
		}
		t.Logf("%d clusters: %d requests in one cycle %v", clusters, total, got)
	}
}
