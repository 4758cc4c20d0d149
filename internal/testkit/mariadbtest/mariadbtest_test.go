package mariadbtest

import (
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestVersions checks each schema version has exactly the columns its release had.
func TestVersions(t *testing.T) {
	db := Start(t)
	tests := []struct {
		v             Version
		cluster, vmap []string
	}{
		{V4_14, []string{"master_node_count"}, nil},
		{V4_16, []string{"control_node_count"}, []string{"control_node"}},
		{V4_19, []string{"cluster_type", "control_node_count"}, []string{"control_node"}},
		{V4_21, []string{"cluster_type", "control_node_count", "etcd_node_count"}, []string{"control_node", "etcd_node", "external_node"}},
	}
	for _, tt := range tests {
		t.Run(tt.v.String(), func(t *testing.T) {
			d := db.NewDatabaseAt(t, tt.v)
			got := map[string][]string{}
			rows, err := d.Admin.Query(`SELECT table_name, column_name FROM information_schema.columns
				WHERE table_schema = DATABASE() AND column_name IN ('master_node_count', 'control_node_count',
				'cluster_type', 'etcd_node_count', 'control_node', 'etcd_node', 'external_node')`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var table, column string
				if err := rows.Scan(&table, &column); err != nil {
					t.Fatal(err)
				}
				got[table] = append(got[table], column)
			}
			for _, cols := range got {
				sort.Strings(cols)
			}
			want := map[string][]string{"kubernetes_cluster": tt.cluster}
			if tt.vmap != nil {
				want["kubernetes_cluster_vm_map"] = tt.vmap
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoad writes a world at the oldest and the newest version and reads rows back.
func TestLoad(t *testing.T) {
	db := Start(t)
	created := time.Date(2026, 6, 5, 19, 55, 31, 0, time.UTC)
	for _, v := range []Version{V4_14, Current} {
		t.Run(v.String(), func(t *testing.T) {
			w := NewWorld()
			set := w.AddCluster(ClusterSpec{Name: "test", Owner: w.AddAccount("alice"), Control: 1, Workers: 2, Etcd: 1, Created: created})
			w.AddMapRow(set.Cluster, 999999)
			d := db.NewDatabaseAt(t, v)
			w.Load(t, d)
			var maps, vms int
			var got time.Time
			if err := d.Admin.QueryRow("SELECT COUNT(*) FROM kubernetes_cluster_vm_map").Scan(&maps); err != nil {
				t.Fatal(err)
			}
			if err := d.Admin.QueryRow("SELECT COUNT(*), MIN(created) FROM vm_instance").Scan(&vms, &got); err != nil {
				t.Fatal(err)
			}
			if maps != 5 || vms != 4 || !got.Equal(created) {
				t.Errorf("%d map rows, %d VMs created %v; want 5, 4, %v", maps, vms, got, created)
			}
			if !strings.HasPrefix(set.Control[0].Name, "test-control-") || set.Rules[0].PublicPort != 2222 {
				t.Errorf("control VM %q with SSH port %d", set.Control[0].Name, set.Rules[0].PublicPort)
			}
		})
	}
}

func TestStatements(t *testing.T) {
	got := statements("-- comment\nCREATE TABLE a (\n  x int -- no\n);\n\nCREATE TABLE b (y int);\n")
	want := []string{"CREATE TABLE a (\n  x int -- no\n)", "CREATE TABLE b (y int)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}
