package database

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// versionWorld has a cluster on 1.23.3, one whose version row is removed, and one without a
// version (kubernetes_version_id NULL).
func versionWorld() *cloudstacktest.World {
	w := &cloudstacktest.World{}
	spec := func(name string) cloudstacktest.ClusterSpec {
		return cloudstacktest.ClusterSpec{Name: name, Account: "alice", Control: 1, Workers: 1, Created: created}
	}
	w.BuildCluster(spec("old")).Cluster.KubernetesVersionID = w.AddKubernetesVersion(cloudstacktest.KubernetesVersion{SemanticVersion: "1.23.3"}).ID
	w.AddKubernetesVersion(cloudstacktest.KubernetesVersion{SemanticVersion: "1.24.0"})
	gone := w.AddKubernetesVersion(cloudstacktest.KubernetesVersion{SemanticVersion: "1.22.0", Removed: true})
	w.BuildCluster(spec("gone")).Cluster.KubernetesVersionID = gone.ID
	w.BuildCluster(spec("none"))
	return w
}

func clusterVersions(t *testing.T, s *Source) map[string]string {
	t.Helper()
	inv, err := s.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range inv.Clusters {
		out[c.Name] = c.KubernetesVersion
	}
	return out
}

// TestKubernetesVersions reads each cluster's semantic version from kubernetes_supported_version
// (schema-41310to41400.sql, unchanged up to the newest schema) at every schema version, within
// the statement that reads the clusters.
func TestKubernetesVersions(t *testing.T) {
	want := map[string]string{"old": "1.23.3", "gone": "", "none": ""}
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.Current} {
		t.Run(v.String(), func(t *testing.T) {
			src, _ := load(t, versionWorld(), v, Options{})
			if diff := cmp.Diff(want, clusterVersions(t, src)); diff != "" {
				t.Errorf("versions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKubernetesVersionsWithoutGrant: an account set up before the exporter read versions, with
// SELECT on every other table it reads, still reads the inventory, in as many statements, without
// the versions.
func TestKubernetesVersionsWithoutGrant(t *testing.T) {
	_, d := load(t, versionWorld(), mariadbtest.Current, Options{})
	dsn := grantedAccount(t, d, "_nv", "kubernetes_supported_version", "event")
	src := newSource(t, Options{DSN: dsn, MaxOpenConns: 1, MaxIdleConns: 1})
	before := comSelect(t, src)
	if diff := cmp.Diff(map[string]string{"old": "", "gone": "", "none": ""}, clusterVersions(t, src)); diff != "" {
		t.Errorf("versions without the grant (-want +got):\n%s", diff)
	}
	if n := comSelect(t, src) - before; n != statementsPerCycle {
		t.Errorf("%d SELECTs without the grant, want %d", n, statementsPerCycle)
	}
}

// TestNodeVersions reads each map row's kubernetes_node_version (schema-42010to42100.sql, 4.21)
// where the schema has it: a node's own Kubernetes version in CloudStack.
func TestNodeVersions(t *testing.T) {
	for _, tt := range []struct {
		v    mariadbtest.Version
		want []string
	}{
		{mariadbtest.V4_19, []string{"", ""}},
		{mariadbtest.Current, []string{"1.24.0", "1.23.3"}},
	} {
		t.Run(tt.v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			set := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "held", Account: "alice", Control: 1, Workers: 1, Created: created})
			set.Cluster.KubernetesVersionID = w.KubernetesVersionOf("1.24.0").ID
			set.Control[0].KubernetesNodeVersion, set.Workers[0].KubernetesNodeVersion = "1.24.0", "1.23.3" // the worker held back
			src, _ := load(t, w, tt.v, Options{})
			inv, err := src.Inventory(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range inv.Clusters[0].Mapped {
				got = append(got, m.KubernetesVersion)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("node versions (-want +got):\n%s", diff)
			}
		})
	}
}
