package mariadbtest

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestVersions checks each schema version has exactly the columns its release had, and the VM
// details table by its name there.
func TestVersions(t *testing.T) {
	db := Start(t)
	tests := []struct {
		v             Version
		cluster, vmap []string
	}{
		{V4_14, []string{"master_node_count"}, nil},
		{V4_16, []string{"control_node_count"}, []string{"control_node"}},
		{V4_17, []string{"control_node_count"}, []string{"control_node"}},
		{V4_19, []string{"cluster_type", "control_node_count"}, []string{"control_node"}},
		{V4_21, []string{"cluster_type", "control_node_count", "etcd_node_count"}, []string{"control_node", "etcd_node", "external_node"}},
	}
	for _, tt := range tests {
		t.Run(tt.v.String(), func(t *testing.T) {
			d := db.NewDatabaseAt(t, tt.v)
			got := map[string][]string{}
			rows, err := d.Admin.Query(`SELECT table_name, column_name FROM information_schema.columns
				WHERE table_schema = DATABASE() AND column_name IN ('master_node_count', 'control_node_count',
				'cluster_type', 'etcd_node_count', 'control_node', 'etcd_node', 'external_node', 'value')`)
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
			// The VM details table by its name at the release (schema-42010to42100.sql renames it).
			want := map[string][]string{"kubernetes_cluster": tt.cluster, tt.v.DetailsTable(): {"value"}}
			if tt.vmap != nil {
				want["kubernetes_cluster_vm_map"] = tt.vmap
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaIsCloudStacks renders the schema of each described release line and checks that it
// has exactly the tables and columns of that release's description (Described), which cites each
// to CloudStack's own SQL at the release: a rendering written from memory, or a table CloudStack
// renamed (user_vm_details, vm_instance_details from 4.21), fails here.
func TestSchemaIsCloudStacks(t *testing.T) {
	db := Start(t)
	for _, release := range DescribedReleases {
		t.Run(release, func(t *testing.T) {
			cols, err := Described(release)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range cols {
				want = append(want, c.Table+"."+c.Name)
			}
			d := db.NewDatabaseAt(t, SchemaOf(release))
			rows, err := d.Admin.Query("SELECT CONCAT(table_name, '.', column_name) FROM information_schema.columns WHERE table_schema = DATABASE()")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var c string
				if err := rows.Scan(&c); err != nil {
					t.Fatal(err)
				}
				got = append(got, c)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the schema rendered for %s (%s) against CloudStack's (-described +rendered):\n%s", release, SchemaOf(release), diff)
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

// TestLoadWorld renders a model of the fake API into rows, loaded twice: ids and uuids kept, a project's
// resources under its account, a dangling map row, the control_node flags CKS writes, the
// cluster's source NAT address and a VPC tier's own, and an event's resource by internal id.
func TestLoadWorld(t *testing.T) {
	db := Start(t)
	created := time.Date(2026, 6, 5, 19, 55, 31, 0, time.UTC)
	cw := &cloudstacktest.World{}
	v := cw.KubernetesVersionOf("1.24.0")
	var vms []int64
	for _, name := range []string{"blue-control-1", "blue-node-1"} {
		vms = append(vms, cw.AddVM(cloudstacktest.VM{Name: name, State: "Running", Account: "PrjAcct-blue-1", DomainID: "d1",
			Domain: "ROOT", ProjectID: "p1", Project: "blue", IPAddress: "10.0.0.1", Created: created}).InternalID)
	}
	c := cw.AddCluster(cloudstacktest.Cluster{Name: "blue", State: "Running", ZoneID: "z1", ZoneName: "zone1",
		Account: "PrjAcct-blue-1", DomainID: "d1", Domain: "ROOT", ProjectID: "p1", Project: "blue", NetworkID: "n1",
		IPAddress: "203.0.113.1", IPAddressID: "ip1", ControlNodes: 1, Size: 1, Created: created,
		VMMap: append(vms, 999999), KubernetesVersionID: v.ID})
	cw.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: "ip-tier", IPAddress: "198.51.100.7",
		PublicPort: 2222, PrivatePort: 22, VirtualMachineID: cw.VMs[vms[0]].ID, NetworkID: "n1"})
	cw.AddEvent(cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.NODES.REMOVE", ResourceID: c.ID, ResourceType: "KubernetesCluster", Created: created}.Of(c))
	for _, tt := range []struct {
		release string
		control string // the map rows' control_node flags
	}{{"4.14", ""}, {"4.22", "1,0,0"}} {
		t.Run(tt.release, func(t *testing.T) {
			cw.Release = tt.release
			d := db.NewDatabaseOf(t, cw)
			d.LoadWorld(t, cw) // again: the rows are replaced, not added twice
			var got []string
			for _, q := range []string{
				"SELECT CONCAT_WS(' ', k.id, k.uuid, a.account_name, a.type, p.name, n.guest_type, kv.semantic_version) FROM kubernetes_cluster k JOIN account a ON a.id = k.account_id JOIN projects p ON p.project_account_id = a.id JOIN networks n ON n.id = k.network_id JOIN kubernetes_supported_version kv ON kv.id = k.kubernetes_version_id",
				"SELECT GROUP_CONCAT(m.vm_id ORDER BY m.id) FROM kubernetes_cluster_vm_map m",
				"SELECT GROUP_CONCAT(CONCAT_WS(' ', v.name, v.instance_name, nc.ip4_address) ORDER BY v.id) FROM vm_instance v JOIN nics nc ON nc.instance_id = v.id",
				"SELECT GROUP_CONCAT(CONCAT_WS(' ', public_ip_address, source_nat) ORDER BY id) FROM user_ip_address",
				"SELECT CONCAT_WS(' ', ip.public_ip_address, f.start_port, pf.dest_port_start) FROM port_forwarding_rules pf JOIN firewall_rules f ON f.id = pf.id JOIN user_ip_address ip ON ip.id = f.ip_address_id",
				"SELECT CONCAT_WS(' ', e.type, a.account_name) FROM event e JOIN account a ON a.id = e.account_id",
			} {
				var s string
				if err := d.Admin.QueryRow(q).Scan(&s); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				got = append(got, s)
			}
			want := []string{
				fmt.Sprintf("%d %s PrjAcct-blue-1 5 blue Isolated 1.24.0", c.InternalID, c.ID),
				fmt.Sprintf("%d,%d,999999", vms[0], vms[1]),
				// The project's account is the third: CloudStack's system and admin are 1 and 2.
				fmt.Sprintf("blue-control-1 i-3-%d-VM 10.0.0.1,blue-node-1 i-3-%d-VM 10.0.0.1", vms[0], vms[1]),
				"203.0.113.1 1,198.51.100.7 0",
				"198.51.100.7 2222 22",
				"KUBERNETES.CLUSTER.NODES.REMOVE PrjAcct-blue-1",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if tt.control != "" {
				var flags string
				if err := d.Admin.QueryRow("SELECT GROUP_CONCAT(control_node ORDER BY id) FROM kubernetes_cluster_vm_map").Scan(&flags); err != nil {
					t.Fatal(err)
				}
				var resource int64
				if err := d.Admin.QueryRow("SELECT resource_id FROM event").Scan(&resource); err != nil {
					t.Fatal(err)
				}
				if flags != tt.control || resource != c.InternalID {
					t.Errorf("control_node %s, want %s; event resource_id %d, want %d", flags, tt.control, resource, c.InternalID)
				}
			}
		})
	}
}
