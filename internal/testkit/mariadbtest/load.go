package mariadbtest

import (
	"cmp"
	"context"
	"database/sql"
	"sort"
	"strings"
	"testing"
	"time"
)

// load replaces the rows of d's tables with w's, in one transaction, with the columns d's schema
// version has.
func (w *rowSet) load(t testing.TB, d *Database) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := d.Admin.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("mariadbtest: load: %v", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	tables := w.tables(d.Version)
	for i := len(tables) - 1; i >= 0; i-- { // children first, for the foreign keys
		if _, err := tx.ExecContext(ctx, "DELETE FROM `"+tables[i].name+"`"); err != nil {
			t.Fatalf("mariadbtest: load: empty %s: %v", tables[i].name, err)
		}
	}
	for _, tbl := range tables {
		if err := insert(ctx, tx, tbl); err != nil {
			t.Fatalf("mariadbtest: load %s: %v", tbl.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("mariadbtest: load: %v", err)
	}
}

type table struct {
	name string
	cols []string
	rows [][]any
}

// removedAt is the removed column of a row: NULL, or a time when the row is removed.
func removedAt(removed bool, created time.Time) any {
	if !removed {
		return nil
	}
	return created.Add(time.Hour)
}

func nullID(n *networkRow) any {
	if n == nil {
		return nil
	}
	return n.ID
}

// tables returns the world's rows by table, parents first.
func (w *rowSet) tables(v Version) []table {
	domains := table{name: "domain", cols: []string{"id", "uuid", "name"}}
	for _, d := range w.Domains {
		domains.rows = append(domains.rows, []any{d.ID, d.UUID, d.Name})
	}
	accounts := table{name: "account", cols: []string{"id", "uuid", "account_name", "type"}}
	for _, a := range w.Accounts {
		accounts.rows = append(accounts.rows, []any{a.ID, a.UUID, a.Name, a.Type})
	}
	projects := table{name: "projects", cols: []string{"id", "uuid", "name", "project_account_id"}}
	for _, p := range w.Projects {
		projects.rows = append(projects.rows, []any{p.ID, p.UUID, p.Name, p.Account.ID})
	}
	zones := table{name: "data_center", cols: []string{"id", "uuid", "name"}}
	for _, z := range w.Zones {
		zones.rows = append(zones.rows, []any{z.ID, z.UUID, z.Name})
	}
	offerings := table{name: "network_offerings", cols: []string{"id"}, rows: [][]any{{offeringNatted}, {offeringRouted}}}
	if v >= V4_20 {
		offerings.cols, offerings.rows = []string{"id", "network_mode"}, [][]any{{offeringNatted, "NATTED"}, {offeringRouted, "ROUTED"}}
	}
	networks := table{name: "networks", cols: []string{"id", "uuid", "network_offering_id", "guest_type", "vpc_id", "network_acl_id", "removed"}}
	for _, n := range w.Networks {
		offering := offeringNatted
		if n.Routed {
			offering = offeringRouted
		}
		networks.rows = append(networks.rows, []any{n.ID, n.UUID, offering, n.GuestType, zeroNull(n.VPC), zeroNull(n.ACL), removedAt(!n.Listed, time.Unix(0, 0).UTC())})
	}
	vms := table{name: "vm_instance", cols: []string{"id", "uuid", "name", "instance_name", "state", "created", "removed", "account_id", "domain_id"}}
	userVMs := table{name: "user_vm", cols: []string{"id", "display_name"}}
	if v >= V4_16 {
		userVMs.cols = append(userVMs.cols, "user_vm_type")
	}
	for _, m := range w.VMs {
		vms.rows = append(vms.rows, []any{m.ID, m.UUID, m.Name, m.InstanceName, m.State, m.Created, removedAt(m.Removed, m.Created), m.Account.ID, m.Domain.ID})
		if !m.System {
			row := []any{m.ID, m.DisplayName}
			if v >= V4_16 {
				row = append(row, cmp.Or(m.Type, "UserVM"))
			}
			userVMs.rows = append(userVMs.rows, row)
		}
	}

	details := table{name: v.DetailsTable(), cols: []string{"vm_id", "name", "value", "display"}}
	for _, m := range w.VMs {
		keys := make([]string, 0, len(m.Details))
		for k := range m.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			details.rows = append(details.rows, []any{m.ID, k, m.Details[k], true})
		}
	}

	controlCount := "control_node_count"
	if v < V4_16 {
		controlCount = "master_node_count"
	}
	versions := table{name: "kubernetes_supported_version", cols: []string{"id", "uuid", "name", "semantic_version", "state", "created", "removed"}}
	for _, kv := range w.KubernetesVersions {
		versions.rows = append(versions.rows, []any{kv.ID, kv.UUID, kv.Name, kv.SemanticVersion, "Enabled", kv.Created, removedAt(kv.Removed, kv.Created)})
	}
	serviceOfferings := table{name: "service_offering", cols: []string{"id", "uuid", "name", "removed", "state"}}
	if v < V4_17 {
		serviceOfferings = table{name: "disk_offering", cols: []string{"id", "uuid", "name", "removed"}}
	}
	ownOfferings := table{name: "service_offering", cols: []string{"id"}}
	for _, o := range w.Offerings {
		if v < V4_17 {
			serviceOfferings.rows = append(serviceOfferings.rows, []any{o.ID, o.UUID, o.Name, removedAt(o.Removed, time.Unix(0, 0).UTC())})
			ownOfferings.rows = append(ownOfferings.rows, []any{o.ID})
			continue
		}
		serviceOfferings.rows = append(serviceOfferings.rows, []any{o.ID, o.UUID, o.Name, removedAt(o.Removed, time.Unix(0, 0).UTC()), cmp.Or(o.State, "Active")})
	}
	clusters := table{name: "kubernetes_cluster", cols: []string{"id", "uuid", "name", "zone_id", "network_id", controlCount, "node_count", "account_id", "domain_id", "state", "created", "removed", "kubernetes_version_id", "service_offering_id"}}
	if v >= V4_19 {
		clusters.cols = append(clusters.cols, "cluster_type")
	}
	if v >= V4_21 {
		clusters.cols = append(clusters.cols, "etcd_node_count", "control_node_service_offering_id", "worker_node_service_offering_id", "etcd_node_service_offering_id")
	}
	for _, c := range w.Clusters {
		row := []any{c.ID, c.UUID, c.Name, c.Zone.ID, nullID(c.Network), c.ControlNodes, c.Nodes, c.Account.ID, c.Domain.ID, c.State, c.Created, removedAt(c.Removed, c.Created), versionID(c.Version), offeringID(c.Offering)}
		if v >= V4_19 {
			row = append(row, c.Type)
		}
		if v >= V4_21 {
			row = append(row, c.EtcdNodes, offeringID(c.ControlOffering), offeringID(c.WorkerOffering), offeringID(c.EtcdOffering))
		}
		clusters.rows = append(clusters.rows, row)
	}
	maps := table{name: "kubernetes_cluster_vm_map", cols: []string{"id", "cluster_id", "vm_id"}}
	if v >= V4_16 {
		maps.cols = append(maps.cols, "control_node")
	}
	if v >= V4_21 {
		maps.cols = append(maps.cols, "etcd_node", "external_node", "kubernetes_node_version")
	}
	for _, r := range w.Maps {
		row := []any{r.ID, r.ClusterID, r.VMID}
		if v >= V4_16 {
			row = append(row, r.Control)
		}
		if v >= V4_21 {
			row = append(row, r.Etcd, r.External, nullString(r.NodeVersion))
		}
		maps.rows = append(maps.rows, row)
	}

	ips := table{name: "user_ip_address", cols: []string{"id", "uuid", "public_ip_address", "source_nat", "network_id", "removed"}}
	for _, ip := range w.IPs {
		ips.rows = append(ips.rows, []any{ip.ID, ip.UUID, ip.Address, ip.SourceNAT, nullID(ip.Network), removedAt(ip.Removed, time.Unix(0, 0).UTC())})
	}
	firewall, forwarding, balancing, balanced, acl := w.ruleTables()
	nics := table{name: "nics", cols: []string{"id", "instance_id", "ip4_address", "network_id", "default_nic", "removed"}}
	for _, n := range w.Nics {
		nics.rows = append(nics.rows, []any{n.ID, n.VM.ID, n.Address, n.Network.ID, n.Default, removedAt(n.Removed, time.Unix(0, 0).UTC())})
	}
	events := table{name: "event", cols: []string{"id", "uuid", "account_id", "type", "state", "description", "created", "level", "archived"}}
	if v >= V4_17 {
		events.cols = append(events.cols, "resource_id", "resource_type")
	}
	for _, e := range w.Events {
		row := []any{e.ID, e.UUID, e.AccountID, e.Type, e.State, e.Description, e.Created, "INFO", e.Archived}
		if v >= V4_17 {
			row = append(row, e.ResourceID, e.ResourceType)
		}
		events.rows = append(events.rows, row)
	}
	tables := []table{domains, accounts, projects, zones, offerings, networks, vms, userVMs, details, versions, serviceOfferings}
	if v < V4_17 {
		tables = append(tables, ownOfferings)
	}
	return append(tables, clusters, maps, ips, firewall, forwarding, balancing, balanced, acl, nics, events)
}

// ruleTables returns the rows of the network rules: firewall_rules of every purpose (in the
// order of their ids), the port-forwarding and load-balancing parts, load_balancer_vm_map and
// network_acl_item. CloudStack writes each rule Active, and a rule's traffic type Ingress.
func (w *rowSet) ruleTables() (firewall, forwarding, balancing, balanced, acl table) {
	firewall = table{name: "firewall_rules", cols: []string{"id", "uuid", "ip_address_id", "start_port", "end_port", "state", "protocol", "purpose", "network_id", "traffic_type"}}
	forwarding = table{name: "port_forwarding_rules", cols: []string{"id", "instance_id", "dest_port_start"}}
	balancing = table{name: "load_balancing_rules", cols: []string{"id", "default_port_start"}}
	balanced = table{name: "load_balancer_vm_map", cols: []string{"load_balancer_id", "instance_id", "revoke"}}
	acl = table{name: "network_acl_item", cols: []string{"id", "uuid", "acl_id", "start_port", "end_port", "state", "protocol", "traffic_type", "action"}}
	rule := func(id int64, uuid string, ip *ipRow, n *networkRow, start, end int, protocol, purpose string) []any {
		return []any{id, nullString(uuid), ip.ID, start, end, "Active", protocol, purpose, n.ID, "Ingress"}
	}
	for _, r := range w.Rules {
		firewall.rows = append(firewall.rows, rule(r.ID, r.UUID, r.IP, r.Network, r.PublicPort, r.PublicPort, "tcp", "PortForwarding"))
		forwarding.rows = append(forwarding.rows, []any{r.ID, r.VM.ID, r.PrivatePort})
	}
	for _, f := range w.Firewall {
		firewall.rows = append(firewall.rows, rule(f.ID, f.UUID, f.IP, f.Network, f.StartPort, f.EndPort, f.Protocol, "Firewall"))
	}
	for _, b := range w.Balancers {
		firewall.rows = append(firewall.rows, rule(b.ID, b.UUID, b.IP, b.Network, b.PublicPort, b.PublicPort, "tcp", "LoadBalancing"))
		balancing.rows = append(balancing.rows, []any{b.ID, b.PrivatePort})
		for _, vm := range b.VMs {
			balanced.rows = append(balanced.rows, []any{b.ID, vm.ID, false})
		}
	}
	sort.Slice(firewall.rows, func(i, j int) bool { return firewall.rows[i][0].(int64) < firewall.rows[j][0].(int64) })
	for _, a := range w.ACLItems {
		acl.rows = append(acl.rows, []any{a.ID, nullString(a.UUID), a.ACL, zeroNull(int64(a.StartPort)), zeroNull(int64(a.EndPort)), "Active", a.Protocol, a.TrafficType, a.Action})
	}
	return firewall, forwarding, balancing, balanced, acl
}

// zeroNull writes 0 as NULL.
func zeroNull(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// insert writes a table's rows with multi-row INSERTs of at most 500 rows.
func insert(ctx context.Context, tx *sql.Tx, t table) error {
	const batch = 500
	for start := 0; start < len(t.rows); start += batch {
		rows := t.rows[start:min(start+batch, len(t.rows))]
		one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(t.cols)), ",") + ")"
		values := strings.TrimSuffix(strings.Repeat(one+",", len(rows)), ",")
		args := make([]any, 0, len(rows)*len(t.cols))
		for _, r := range rows {
			args = append(args, r...)
		}
		q := "INSERT INTO `" + t.name + "` (`" + strings.Join(t.cols, "`, `") + "`) VALUES " + values
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
