package exporter

import (
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestVersionSkewFromTheDatabase is the "Kubernetes version skew" scenario of docs/scenarios.md
// with inventory.source database: the cluster's kubernetes_version_id moved to 1.24.0 (as a
// finished upgrade writes it) while the nodes still run v1.23.3, read from MariaDB as the
// least-privilege account; each node announced once; the nodes upgraded, the node side matches
// again. The versions come from the database alone: listKubernetesSupportedVersions is never
// called.
func TestVersionSkewFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "upgraded", Workers: 1, KubernetesVersion: "1.23.3"},
		simulator.ClusterSpec{Name: "other", Workers: 1})
	up := cs[0]
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.KubernetesVersionOf("1.24.0") })
	d, _, _ := e.startOnDatabase(db, "  interval: 100ms\n")

	e.nextCycles(3)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %v", f)
	}
	if err := e.sim.SetKubernetesVersion(up.ID, "1.24.0"); err != nil {
		t.Fatal(err)
	}
	e.reload(d)
	want, messages := skewed(up)
	e.waitFor("node_version_mismatch", func() bool { return slices.Equal(e.findings(), want) })
	e.nextCycles(3)
	written := e.writes()
	for i, vm := range up.VMs {
		msg := messages[i]
		if count(written, "addAnnotation [WARN] "+msg) != 1 || count(written, "generateAlert "+msg) != 1 {
			t.Errorf("writes for %s: want one annotation and one alert with %q in %q", vm, msg, written)
		}
	}
	if len(written) != 2*len(up.VMs) {
		t.Fatalf("writes: %q, want an annotation and an alert per node", written)
	}

	if _, err := e.sim.SetKubeletVersion(up.ID, "v1.24.0"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("no finding", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(3)
	if got := e.writes()[len(written):]; count(got, "addAnnotation [INFO] The VM map of Kubernetes cluster upgraded "+nodeSideAgain) != 1 ||
		count(got, "addAnnotation") != 1 || count(got, "generateAlert") != 0 {
		t.Fatalf("writes after the upgrade finished: %q, want the one [INFO] annotation", got)
	}
	if n := e.sim.CloudStack.CallCount("listKubernetesSupportedVersions"); n != 0 {
		t.Errorf("listKubernetesSupportedVersions called %d times with the database source", n)
	}
}
