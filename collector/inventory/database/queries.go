package database

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// columns records which of the columns that came and went across CloudStack releases this
// database has, read once per cycle from information_schema so the SELECTs name only columns that
// exist. What the exporter relies on, by the upgrade script that introduced it
// (engine/schema/src/main/resources/META-INF/db/ in apache/cloudstack):
//
//   - schema-41310to41400.sql (4.14): kubernetes_cluster (master_node_count, node_count, network_id,
//     state, created, removed) and kubernetes_cluster_vm_map (id, cluster_id, vm_id; no foreign
//     key on vm_id, so a row may outlive its VM).
//   - schema-41520to41600.sql (4.16): master_node_count renamed control_node_count;
//     kubernetes_cluster_vm_map.control_node.
//   - schema-41310to41400.sql (4.14) also: kubernetes_supported_version (id, semantic_version
//     varchar(32) NOT NULL, removed) and kubernetes_cluster.kubernetes_version_id; no later script
//     up to schema-41900to41910.sql renames or drops them (4.19 only makes kubernetes_version_id
//     NULL-able, schema-41810to41900.sql, for clusters CKS did not deploy).
//   - schema-41810to41900.sql (4.19): kubernetes_cluster.cluster_type, default CloudManaged.
//   - schema-42010to42100.sql (4.21): kubernetes_cluster.etcd_node_count,
//     kubernetes_cluster_vm_map.etcd_node, external_node and kubernetes_node_version (each node's
//     own version, filled with the cluster's by Upgrade42010to42100 and kept by upgrades, which
//     leave out nodes marked manual_upgrade).
//   - schema-42010to42100.sql (4.21) also renames user_vm_details, the VM details table where CKS
//     keeps a control node's login user, to vm_instance_details (details.go).
//   - older than CKS: uuid columns (schema-2214to30.sql, 3.0), projects (3.0),
//     user_ip_address.removed (schema-430to440.sql).
//
// internal/testkit/mariadbtest/testdata/cloudstack/<release>.txt holds, per release, every table
// and column the statements name with the line of that release's SQL that declares it;
// TestQueriesNameWhatCloudStackHas checks the statements against it.
type columns struct {
	controlCount string // control_node_count, or master_node_count before 4.16
	clusterType  bool
	etcdCount    bool
	mapControl   bool
	mapEtcd      bool
	mapExternal  bool
	mapVersion   bool // kubernetes_cluster_vm_map.kubernetes_node_version
	// versions: kubernetes_cluster.kubernetes_version_id and
	// kubernetes_supported_version.semantic_version are both readable. information_schema shows
	// only the columns the account may read, so an account set up before the exporter read
	// versions (without SELECT on kubernetes_supported_version) keeps working, without them.
	versions bool
	// events: the event table is readable (its description column; an account without SELECT
	// on it reads everything else), and eventResource its resource_id (4.17 on).
	events, eventResource bool
	// vmType: user_vm.user_vm_type (4.16 on), "cksnode" for the VMs CKS deploys.
	vmType bool
	// details is the VM details table the account may read, by the name of this release
	// (details.go); empty when it may read neither name.
	details string
	// offerings is where the clusters' service offerings are read from (offerings.go), and
	// nodeOfferings which node types have a column of their own (4.21 on).
	offerings     offeringSchema
	nodeOfferings map[string]bool
	// rulesUnread says why the network rules cannot be read (a table the account may not read,
	// rules.go); empty when they can. networkMode: network_offerings.network_mode (4.20 on).
	rulesUnread string
	networkMode bool
}

const columnsQuery = `SELECT table_name, column_name FROM information_schema.columns
WHERE table_schema = DATABASE()
  AND table_name IN ('kubernetes_cluster', 'kubernetes_cluster_vm_map', 'kubernetes_supported_version', 'event', 'user_vm',
                     '` + detailsTable + `', '` + oldDetailsTable + `', 'service_offering', 'disk_offering',
                     'networks', 'network_offerings', 'firewall_rules', 'port_forwarding_rules', 'load_balancing_rules',
                     'load_balancer_vm_map', 'network_acl_item')
  AND column_name IN ('control_node_count', 'master_node_count', 'cluster_type', 'etcd_node_count',
                      'control_node', 'etcd_node', 'external_node', 'kubernetes_version_id', 'semantic_version',
                      'kubernetes_node_version', 'description', 'resource_id', 'value', 'user_vm_type',
                      'service_offering_id', 'control_node_service_offering_id', 'worker_node_service_offering_id',
                      'etcd_node_service_offering_id', 'id', 'uuid', 'state',
                      'network_acl_id', 'vpc_id', 'network_mode', 'traffic_type', 'dest_port_start', 'default_port_start',
                      'revoke', 'action')`

// errNoCKS is returned when the database has no kubernetes_cluster table CKS could have made.
var errNoCKS = errors.New("no kubernetes_cluster table with a control or master node count: the DSN must name CloudStack's database (4.14 or later)")

func (c columns) clustersQuery() string {
	return `SELECT k.id, k.uuid, k.name, k.state, ` + pick(c.clusterType, "k.cluster_type", "NULL") + `,
  k.` + c.controlCount + `, k.node_count, ` + pick(c.etcdCount, "k.etcd_node_count", "NULL") + `, k.created,
  dc.uuid, dc.name, a.account_name, a.type, d.uuid, d.name, p.uuid, p.name, k.network_id, n.uuid, n.guest_type,
  ` + pick(c.versions, "kv.semantic_version", "NULL") + `, ` + c.operationStarted() + `
FROM kubernetes_cluster k` + pick(c.versions, `
LEFT JOIN kubernetes_supported_version kv ON kv.id = k.kubernetes_version_id AND kv.removed IS NULL`, "") + `
LEFT JOIN data_center dc ON dc.id = k.zone_id
LEFT JOIN account a ON a.id = k.account_id
LEFT JOIN domain d ON d.id = k.domain_id
LEFT JOIN projects p ON p.project_account_id = k.account_id AND p.removed IS NULL
LEFT JOIN networks n ON n.id = k.network_id
WHERE k.removed IS NULL
ORDER BY k.id`
}

// mapQuery reads every map row of every cluster with its VM, expunged or not; v.id is NULL when
// the VM does not exist. For a removed VM it also reads whether it was unmanaged, not expunged:
// unmanageVirtualMachine leaves the row as an expunge does (state Expunging, removed set,
// UserVmManagerImpl.unmanageVMFromDB at 4.19.0.0), and only its VM.UNMANAGE event, whose resource
// is the VM (UnmanageVMInstanceCmd.getApiResourceId), tells them apart; the event must be under
// the VM's own account (where the event table has resource_id, 4.17 on).
func (c columns) mapQuery() string {
	return `SELECT m.id, m.cluster_id, m.vm_id, ` + pick(c.mapControl, "m.control_node", "0") + `, ` +
		pick(c.mapEtcd, "m.etcd_node", "0") + `, ` + pick(c.mapExternal, "m.external_node", "0") + `, ` +
		pick(c.mapVersion, "m.kubernetes_node_version", "NULL") + `,
  v.id, v.uuid, v.name, v.state, v.created, v.removed, ` + pick(c.events && c.eventResource, `v.removed IS NOT NULL AND EXISTS (SELECT 1 FROM event e
    WHERE e.type = '`+collector.EventVMUnmanage+`' AND e.resource_type = '`+string(collector.CauseOnVM)+`' AND e.resource_id = v.id AND e.account_id = v.account_id)`, "0") + `
FROM kubernetes_cluster_vm_map m
JOIN kubernetes_cluster k ON k.id = m.cluster_id
LEFT JOIN vm_instance v ON v.id = m.vm_id
WHERE k.removed IS NULL
ORDER BY m.cluster_id, m.id`
}

// vmsQuery reads the VMs listVirtualMachines shows an admin: user VMs (user_vm_view joins user_vm,
// account and domain) that are not expunged, in any state, with the type CloudStack records for
// each (user_vm.user_vm_type, schema-41520to41600.sql line 22 at 4.16.0.0: "cksnode" for the VMs
// CKS deploys, UserVmManager.CKS_NODE; NULL before 4.16).
func (c columns) vmsQuery() string {
	return `SELECT v.id, v.uuid, v.name, v.state, v.created, a.account_name, a.type, d.uuid, p.uuid, ` + pick(c.vmType, "u.user_vm_type", "NULL") + `
FROM user_vm u
JOIN vm_instance v ON v.id = u.id
JOIN account a ON a.id = v.account_id
JOIN domain d ON d.id = v.domain_id
LEFT JOIN projects p ON p.project_account_id = v.account_id AND p.removed IS NULL
WHERE v.removed IS NULL
ORDER BY v.id`
}

// clusterNetworks selects the networks of the clusters.
const clusterNetworks = `SELECT kn.network_id FROM kubernetes_cluster kn WHERE kn.removed IS NULL AND kn.network_id IS NOT NULL`

// sourceNATQuery reads the source NAT addresses of the clusters' networks, as
// IPAddressDao.listByAssociatedNetwork(network, true) does for the cluster response's ipaddress.
const sourceNATQuery = `SELECT ip.id, ip.public_ip_address, ip.network_id
FROM user_ip_address ip
WHERE ip.source_nat = 1 AND ip.removed IS NULL AND ip.network_id IN (` + clusterNetworks + `)
ORDER BY ip.id`

// mappedVMs selects the VMs of the clusters' maps.
const mappedVMs = `SELECT m.vm_id FROM kubernetes_cluster_vm_map m JOIN kubernetes_cluster k ON k.id = m.cluster_id
  WHERE k.removed IS NULL`

// rulesQuery reads the port-forwarding rules to port 22 of mapped VMs, on any address: the
// network's source NAT address, or the public IP of its own that a cluster on a VPC tier is
// reached through (4.18.1+).
const rulesQuery = `SELECT pf.instance_id, f.ip_address_id, ip.public_ip_address, f.start_port
FROM port_forwarding_rules pf
JOIN firewall_rules f ON f.id = pf.id
JOIN user_ip_address ip ON ip.id = f.ip_address_id
WHERE f.purpose = 'PortForwarding' AND pf.dest_port_start = 22 AND ip.removed IS NULL
  AND pf.instance_id IN (` + mappedVMs + `)
ORDER BY f.id`

// loginUsersQuery reads the controlNodeLoginUser detail of mapped VMs from the VM details table
// of this release, which CKS reads with UserVmDetailsDao.findDetail, whatever its display flag
// (KubernetesClusterActionWorker.getControlNodeLoginUser at 4.17.0.0; VMInstanceDetailsDao from
// 4.21.0.0, the same columns).
func (c columns) loginUsersQuery() string {
	return `SELECT d.vm_id, d.value FROM ` + c.details + ` d
WHERE d.name = 'controlNodeLoginUser' AND d.vm_id IN (` + mappedVMs + `)
ORDER BY d.id`
}

// nicsQuery reads the NICs of mapped VMs, for clusters reached on their nodes' own addresses.
const nicsQuery = `SELECT nc.instance_id, nc.ip4_address, n.uuid, nc.default_nic
FROM nics nc
LEFT JOIN networks n ON n.id = nc.network_id
WHERE nc.removed IS NULL AND nc.instance_id IN (` + mappedVMs + `)
ORDER BY nc.id`

// operationStarted is the column of when the operation of a cluster in an operation state was
// asked for: the newest Scheduled or Started event of the state's commands that names the cluster
// (collector.OperationEvents; the description ends in its uuid, or for the create in its
// internal id; or, where event has resource_id, the cluster is the event's resource: every event
// of a cluster command from 4.19.1.0, apache/cloudstack#9070, as the API source reads them in
// api/operations.go, and 4.21's node commands). event.type is indexed
// (i_event__type_id, create-schema.sql at 4.14.0.0) and the look-up runs only for clusters in such
// a state; archived events are left out, as listEvents does. The create's text differs in case
// between releases ("Creating Kubernetes cluster. Cluster Id: <id>" up to 4.19.0.0, "Creating
// Kubernetes cluster Id: <id>" from 4.19.1.0, CreateKubernetesClusterCmd.getEventDescription), so
// its match lower-cases the description: a LIKE is case-insensitive only under a _ci collation,
// which event.description has by default (utf8mb4 from schema-41910to42000.sql line 336, 4.20.0.0)
// but not under a _bin one a database may be set to. Only events recorded under the
// cluster's own account count (api/operations.go ownedBy says why): a description may carry a
// name another tenant chose, a cluster named like this one's uuid. NULL without the event table.
func (c columns) operationStarted() string {
	if !c.events {
		return "NULL"
	}
	states := make([]string, 0, len(collector.OperationEvents))
	for state := range collector.OperationEvents {
		states = append(states, state)
	}
	sort.Strings(states)
	var b strings.Builder
	b.WriteString("CASE k.state")
	for _, state := range states {
		var names []string
		for _, e := range collector.OperationEvents[state] {
			switch e.Names {
			case collector.NamedByUUID:
				names = append(names, "(e.type = '"+e.Type+"' AND e.description LIKE CONCAT('%', k.uuid))")
			case collector.NamedByInternalID:
				names = append(names, "(e.type = '"+e.Type+"' AND LOWER(e.description) LIKE CONCAT('%cluster id: ', k.id))")
			}
			if c.eventResource { // every event named so from 4.19.1.0 (#9070), 4.21's node commands
				names = append(names, clusterEvent(e.Type))
			}
		}
		if len(names) == 0 {
			continue
		}
		b.WriteString("\n    WHEN '" + state + "' THEN (SELECT MAX(e.created) FROM event e WHERE e.archived = 0 AND e.state IN ('Scheduled', 'Started')\n      AND e.account_id = k.account_id AND (" +
			strings.Join(names, " OR ") + "))")
	}
	b.WriteString("\n  END")
	return b.String()
}

func pick(ok bool, column, otherwise string) string {
	if ok {
		return column
	}
	return otherwise
}

type clusterRow struct {
	id                             int64
	uuid, name, state, clusterType sql.NullString
	control, workers               int64
	etcd                           sql.NullInt64
	created                        sql.NullTime
	zoneUUID, zoneName             sql.NullString
	accountName                    sql.NullString
	accountType                    sql.NullInt64
	domainUUID, domainName         sql.NullString
	projectUUID, projectName       sql.NullString
	networkID                      sql.NullInt64
	networkUUID, guestType         sql.NullString
	semanticVersion                sql.NullString // of the cluster's version; NULL: unknown
	operationStarted               sql.NullTime   // see columns.operationStarted
}

type mapRow struct {
	id, clusterID, vmID     int64
	control, etcd, external bool
	nodeVersion             sql.NullString
	vm                      sql.NullInt64 // vm_instance.id; NULL when the VM does not exist
	uuid, name, state       sql.NullString
	created, removed        sql.NullTime
	unmanaged               sql.NullBool // removed by unmanageVirtualMachine (see mapQuery)
}

type vmRow struct {
	id                int64
	uuid, name, state sql.NullString
	created           sql.NullTime
	accountName       sql.NullString
	accountType       sql.NullInt64
	domainUUID        sql.NullString
	projectUUID       sql.NullString
	vmType            sql.NullString
}

type ipRow struct {
	id        int64
	address   string
	networkID int64
}

type nicRow struct {
	vmID        int64
	address     sql.NullString
	networkUUID sql.NullString
	isDefault   bool
}

// rows is what one cycle read, all within one read-only transaction.
type rows struct {
	cols     columns
	clusters []clusterRow
	offers   []offeringRow
	maps     []mapRow
	vms      []vmRow
	ips      []ipRow
	rules    map[int64][]collector.SSHRule // by vm_instance.id: the rules to its port 22
	users    map[int64]string              // by vm_instance.id: its controlNodeLoginUser
	nics     []nicRow
	network  networkRules // the network side's rules (rules.go)
}

// reader runs the cycle's statements in tx, each bounded by timeout.
type reader struct {
	tx      *sql.Tx
	timeout time.Duration
}

// query runs one SELECT and hands every row to scan.
func (r reader) query(ctx context.Context, q string, scan func(*sql.Rows) error) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		if err := scan(res); err != nil {
			return err
		}
	}
	return res.Err()
}

// read runs the cycle's statements (count_test.go's statementsPerCycle); step names the one that
// failed. The network side's come last: when they fail, only the network side is left unread.
func (r reader) read(ctx context.Context) (out rows, step string, err error) {
	present := map[[2]string]bool{}
	if err := r.query(ctx, columnsQuery, func(res *sql.Rows) error {
		var table, column string
		if err := res.Scan(&table, &column); err != nil {
			return err
		}
		present[[2]string{table, column}] = true
		return nil
	}); err != nil {
		return out, "read the schema", err
	}
	c, err := detect(present)
	if err != nil {
		return out, "read the schema", err
	}
	out.cols = c
	if c.details == "" {
		return out, "read the VM details table", r.noDetails(ctx, c)
	}

	if err := r.query(ctx, c.clustersQuery(), func(res *sql.Rows) error {
		var k clusterRow
		err := res.Scan(&k.id, &k.uuid, &k.name, &k.state, &k.clusterType, &k.control, &k.workers, &k.etcd, &k.created,
			&k.zoneUUID, &k.zoneName, &k.accountName, &k.accountType, &k.domainUUID, &k.domainName,
			&k.projectUUID, &k.projectName, &k.networkID, &k.networkUUID, &k.guestType, &k.semanticVersion, &k.operationStarted)
		out.clusters = append(out.clusters, k)
		return err
	}); err != nil {
		return out, "read kubernetes_cluster", err
	}
	if out.offers, err = r.readOfferings(ctx, c); err != nil {
		return out, "read service_offering", err
	}
	if err := r.query(ctx, c.mapQuery(), func(res *sql.Rows) error {
		var m mapRow
		err := res.Scan(&m.id, &m.clusterID, &m.vmID, &m.control, &m.etcd, &m.external, &m.nodeVersion,
			&m.vm, &m.uuid, &m.name, &m.state, &m.created, &m.removed, &m.unmanaged)
		out.maps = append(out.maps, m)
		return err
	}); err != nil {
		return out, "read kubernetes_cluster_vm_map", err
	}
	if err := r.query(ctx, c.vmsQuery(), func(res *sql.Rows) error {
		var v vmRow
		err := res.Scan(&v.id, &v.uuid, &v.name, &v.state, &v.created, &v.accountName, &v.accountType, &v.domainUUID, &v.projectUUID, &v.vmType)
		out.vms = append(out.vms, v)
		return err
	}); err != nil {
		return out, "read vm_instance", err
	}
	if err := r.query(ctx, sourceNATQuery, func(res *sql.Rows) error {
		var ip ipRow
		err := res.Scan(&ip.id, &ip.address, &ip.networkID)
		out.ips = append(out.ips, ip)
		return err
	}); err != nil {
		return out, "read user_ip_address", err
	}
	out.rules = make(map[int64][]collector.SSHRule)
	if err := r.query(ctx, rulesQuery, func(res *sql.Rows) error {
		var vm, ipID int64
		var address sql.NullString
		var port sql.NullInt64
		if err := res.Scan(&vm, &ipID, &address, &port); err != nil {
			return err
		}
		if port.Valid && port.Int64 > 0 && port.Int64 <= 65535 {
			out.rules[vm] = append(out.rules[vm], collector.SSHRule{AddressID: strconv.FormatInt(ipID, 10),
				Address: address.String, Port: int(port.Int64)})
		}
		return nil
	}); err != nil {
		return out, "read port_forwarding_rules", err
	}
	out.users = make(map[int64]string)
	if err := r.query(ctx, c.loginUsersQuery(), func(res *sql.Rows) error {
		var vm int64
		var user sql.NullString
		if err := res.Scan(&vm, &user); err != nil {
			return err
		}
		if user.String != "" {
			out.users[vm] = user.String
		}
		return nil
	}); err != nil {
		return out, "read " + c.details, err
	}
	if err := r.query(ctx, nicsQuery, func(res *sql.Rows) error {
		var n nicRow
		err := res.Scan(&n.vmID, &n.address, &n.networkUUID, &n.isDefault)
		out.nics = append(out.nics, n)
		return err
	}); err != nil {
		return out, "read nics", err
	}
	out.network = r.readRules(ctx, c)
	return out, "", nil
}

// detect is what the schema has, from the (table, column) pairs information_schema shows the
// account.
func detect(present map[[2]string]bool) (columns, error) {
	c := columns{
		clusterType: present[[2]string{"kubernetes_cluster", "cluster_type"}],
		etcdCount:   present[[2]string{"kubernetes_cluster", "etcd_node_count"}],
		mapControl:  present[[2]string{"kubernetes_cluster_vm_map", "control_node"}],
		mapEtcd:     present[[2]string{"kubernetes_cluster_vm_map", "etcd_node"}],
		mapExternal: present[[2]string{"kubernetes_cluster_vm_map", "external_node"}],
		mapVersion:  present[[2]string{"kubernetes_cluster_vm_map", "kubernetes_node_version"}],
		versions: present[[2]string{"kubernetes_cluster", "kubernetes_version_id"}] &&
			present[[2]string{"kubernetes_supported_version", "semantic_version"}],
		events:        present[[2]string{"event", "description"}],
		eventResource: present[[2]string{"event", "resource_id"}],
		vmType:        present[[2]string{"user_vm", "user_vm_type"}],
	}
	c.details = detailsOf(present)
	c.offerings, c.nodeOfferings = detectOfferings(present)
	c.rulesUnread, c.networkMode = detectRules(present)
	switch {
	case present[[2]string{"kubernetes_cluster", "control_node_count"}]:
		c.controlCount = "control_node_count"
	case present[[2]string{"kubernetes_cluster", "master_node_count"}]:
		c.controlCount = "master_node_count"
	default:
		return c, errNoCKS
	}
	return c, nil
}
