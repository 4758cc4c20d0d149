package exporter

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestShardsCoverEveryClusterOnce: three replicas with check.shard 0, 1, 2 of 3 against one cloud
// together check every cluster exactly once and announce every finding exactly once.
func TestShardsCoverEveryClusterOnce(t *testing.T) {
	var specs []simulator.ClusterSpec
	for i := 0; i < 9; i++ {
		specs = append(specs, simulator.ClusterSpec{Name: fmt.Sprintf("c%d", i), Workers: 1})
	}
	first, cs := newEnv(t, specs...)
	for _, c := range cs {
		if _, err := first.sim.DeleteMapRow(c.ID, c.VMs[1]); err != nil {
			t.Fatal(err)
		}
	}
	replicas := []*env{first}
	for i := 1; i < 3; i++ {
		replicas = append(replicas, &env{t: t, sim: first.sim, dir: t.TempDir(), logs: &logRecorder{}})
	}
	for i, r := range replicas {
		r.writeConfig(fmt.Sprintf("  interval: 100ms\n  shard: %d\n  total_shards: 3\n", i), "  max_alerts_per_cycle: 20\n")
		r.start()
	}
	for _, r := range replicas {
		r.nextCycles(3)
	}

	checked := map[string]int{}
	clusterOf := regexp.MustCompile(`cluster_name="([^"]*)"`)
	for i, r := range replicas {
		m := r.metrics()
		if m["cks_drift_shard_ordinal"] != float64(i) || m["cks_drift_total_shards"] != 3 {
			t.Fatalf("replica %d: shard metrics %v", i, matching(m, "shard"))
		}
		own := matching(m, `^cks_drift_cluster_checked\{`)
		if len(own) == 0 {
			t.Errorf("replica %d checks no cluster", i)
		}
		for k := range own {
			checked[clusterOf.FindStringSubmatch(k)[1]]++
		}
	}
	if len(checked) != len(cs) {
		t.Fatalf("clusters checked by some replica: %v, want all %d", checked, len(cs))
	}
	for name, n := range checked {
		if n != 1 {
			t.Errorf("cluster %s checked by %d replicas", name, n)
		}
	}
	w := first.writes()
	for _, c := range cs {
		if n := count(w, "addAnnotation [WARN] VM "+c.VMs[1]+" "); n != 1 {
			t.Errorf("cluster %s announced %d times", c.Name, n)
		}
	}
	if a := first.storedAlerts(); len(a) != len(cs) {
		t.Errorf("stored alerts: %d, want %d", len(a), len(cs))
	}
}
