package database

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// versionWorld has a cluster on 1.23.3, one whose version row is removed, and one without a
// version (kubernetes_version_id NULL).
func versionWorld() *mariadbtest.World {
	w := mariadbtest.NewWorld()
	alice := w.AddAccount("alice")
	old := w.AddCluster(mariadbtest.ClusterSpec{Name: "old", Owner: alice, Control: 1, Workers: 1, Created: created})
	old.Cluster.Version = w.AddKubernetesVersion("1.23.3")
	w.AddKubernetesVersion("1.24.0")
	gone := w.AddCluster(mariadbtest.ClusterSpec{Name: "gone", Owner: alice, Control: 1, Workers: 1, Created: created})
	gone.Cluster.Version = w.AddKubernetesVersion("1.22.0")
	gone.Cluster.Version.Removed = true
	w.AddCluster(mariadbtest.ClusterSpec{Name: "none", Owner: alice, Control: 1, Workers: 1, Created: created})
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
	user := d.Name + "_nv"
	stmts := []string{fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'", user)}
	for _, table := range []string{"kubernetes_cluster", "kubernetes_cluster_vm_map", "vm_instance", "user_vm",
		"user_vm_details", "account", "domain", "projects", "data_center", "networks", "user_ip_address",
		"firewall_rules", "port_forwarding_rules", "nics"} {
		stmts = append(stmts, fmt.Sprintf("GRANT SELECT ON `%s`.`%s` TO '%s'@'%%'", d.Name, table, user))
	}
	for _, q := range stmts {
		if _, err := d.Admin.Exec(q); err != nil {
			t.Skipf("the test server does not let the administrator create an account (%v): %s", err, q)
		}
	}
	t.Cleanup(func() { _, _ = d.Admin.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	cfg, err := mysql.ParseDSN(d.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd = user, "pw"
	src := newSource(t, Options{DSN: cfg.FormatDSN(), MaxOpenConns: 1, MaxIdleConns: 1})
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
			w := mariadbtest.NewWorld()
			set := w.AddCluster(mariadbtest.ClusterSpec{Name: "held", Owner: w.AddAccount("alice"), Control: 1, Workers: 1, Created: created})
			set.Cluster.Version = w.AddKubernetesVersion("1.24.0")
			set.Map[0].NodeVersion, set.Map[1].NodeVersion = "1.24.0", "1.23.3" // the worker held back
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
