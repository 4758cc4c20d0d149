package database

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The network side's rules (collector.NetworkRules), read from the tables CloudStack keeps them
// in, as the API source reads them from listNetworks, listFirewallRules, listPortForwardingRules,
// listLoadBalancerRules and listNetworkACLs (collector/inventory/api/rules.go). Every table and
// column is declared alike from 4.14.0.0 to the 4.22 line (the release descriptions of
// internal/testkit/mariadbtest/testdata/cloudstack cite each line):
//
//   - networks (create-schema.sql): network_offering_id, vpc_id (a VPC tier), removed;
//     network_acl_id from schema-410to420.sql line 2033, the tier's ACL list. CKS creates no ACL
//     items when it is NetworkACL.DEFAULT_ALLOW, the list of id 2 that schema-410to420.sql line
//     2041 inserts as default_allow (setupKubernetesClusterVpcTierRules in
//     KubernetesClusterResourceModifierActionWorker at 4.19.0.0 compares the id, not a name).
//   - network_offerings.network_mode (schema-41910to42000.sql lines 80 and 196 at 4.20.0.0, added
//     as nsx_mode and renamed): ROUTED is a routed network (NetworkOfferingDaoImpl.isRoutedNetwork),
//     reached directly, on which CKS creates no rules (KubernetesClusterManagerImpl.isDirectAccess
//     at 4.20.0.0); ApiResponseHelper answers ip4routing for it, which the API source reads.
//   - firewall_rules (create-schema.sql): one row per rule whatever its purpose (Firewall,
//     PortForwarding, LoadBalancing), with its uuid, address, ports, protocol, state, network and
//     traffic type; listFirewallRules lists the Ingress rules of purpose Firewall.
//   - port_forwarding_rules (create-schema.sql): a port-forwarding rule's VM and private port.
//   - load_balancing_rules (create-schema.sql): a load-balancer rule's private port
//     (default_port_start); load_balancer_vm_map its VMs, revoke set while one is being removed.
//     Internal load balancers of VPC tiers have no public address: listLoadBalancerRules does not
//     list them, nor does the source read them.
//   - network_acl_item (schema-410to420.sql lines 2012-2031): the items of an ACL list.
//
// The statements are four, whatever the number of clusters: each reads the rows of the clusters'
// networks only, bounded like the cycle's other statements by the query timeout.

// ruleTables are the tables and a column of each that the network side needs the account to
// read; information_schema shows the columns of tables the account may read only.
var ruleTables = [][2]string{
	{"networks", "network_acl_id"}, {"networks", "vpc_id"}, {"network_offerings", "id"},
	{"firewall_rules", "traffic_type"}, {"port_forwarding_rules", "dest_port_start"},
	{"load_balancing_rules", "default_port_start"}, {"load_balancer_vm_map", "revoke"}, {"network_acl_item", "action"},
}

// detectRules returns why the rules cannot be read (empty when they can) and whether
// network_offerings has network_mode (4.20 on).
func detectRules(present map[[2]string]bool) (unread string, networkMode bool) {
	var denied []string
	for _, tc := range ruleTables {
		if !present[tc] {
			denied = append(denied, tc[0])
		}
	}
	if len(denied) > 0 {
		return "the database account may not read " + strings.Join(denied, ", ") + ": the network rules are not compared (see the database grants)", false
	}
	return "", present[[2]string{"network_offerings", "network_mode"}]
}

// ruleNetworksQuery reads the clusters' networks that are not removed: their kind, their tier's
// ACL list and whether their offering is routed.
func (c columns) ruleNetworksQuery() string {
	return `SELECT n.id, n.guest_type, n.vpc_id IS NOT NULL, n.network_acl_id, ` + pick(c.networkMode, "COALESCE(o.network_mode = 'ROUTED', 0)", "0") + `
FROM networks n
LEFT JOIN network_offerings o ON o.id = n.network_offering_id
WHERE n.removed IS NULL AND n.id IN (` + clusterNetworks + `)
ORDER BY n.id`
}

// networkRulesQuery reads the rules of the clusters' networks: ingress firewall rules,
// port-forwarding rules with their VM and private port, and the load-balancer rules of a public
// address with their private port.
const networkRulesQuery = `SELECT f.id, f.network_id, f.purpose, f.uuid, f.state, f.protocol, f.start_port, f.end_port,
  ip.uuid, ip.public_ip_address, pf.dest_port_start, v.uuid, lb.default_port_start
FROM firewall_rules f
LEFT JOIN user_ip_address ip ON ip.id = f.ip_address_id
LEFT JOIN port_forwarding_rules pf ON pf.id = f.id
LEFT JOIN vm_instance v ON v.id = pf.instance_id
LEFT JOIN load_balancing_rules lb ON lb.id = f.id
WHERE f.network_id IN (` + clusterNetworks + `)
  AND ((f.purpose = 'Firewall' AND f.traffic_type = 'Ingress') OR (f.purpose = 'PortForwarding' AND pf.id IS NOT NULL)
    OR (f.purpose = 'LoadBalancing' AND lb.id IS NOT NULL AND f.ip_address_id IS NOT NULL))
ORDER BY f.id`

// balancedVMsQuery reads the VMs assigned to the load-balancer rules of the API port on the
// clusters' networks (not those being removed), the only ones the network side compares.
var balancedVMsQuery = `SELECT m.load_balancer_id, v.uuid
FROM load_balancer_vm_map m
JOIN firewall_rules f ON f.id = m.load_balancer_id
JOIN vm_instance v ON v.id = m.instance_id
WHERE m.revoke = 0 AND f.purpose = 'LoadBalancing' AND f.start_port = ` + strconv.Itoa(collector.APIPort) + ` AND f.network_id IN (` + clusterNetworks + `)
ORDER BY m.load_balancer_id, v.id`

// aclItemsQuery reads the items of the ACL lists of the clusters' VPC tiers.
const aclItemsQuery = `SELECT a.acl_id, a.uuid, a.protocol, a.start_port, a.end_port, a.traffic_type, a.action, a.state
FROM network_acl_item a
WHERE a.acl_id IN (SELECT n.network_acl_id FROM networks n
  WHERE n.vpc_id IS NOT NULL AND n.removed IS NULL AND n.id IN (` + clusterNetworks + `))
ORDER BY a.id`

// ruleStatements are the statements readRules runs, in order.
func (c columns) ruleStatements() []string {
	return []string{c.ruleNetworksQuery(), networkRulesQuery, balancedVMsQuery, aclItemsQuery}
}

// aclDefaultAllow is the id of CloudStack's ACL list default_allow (NetworkACL.DEFAULT_ALLOW).
const aclDefaultAllow = 2

// networkRules is what the four statements read: the rules by network (its internal id), or why
// they could not be read.
type networkRules struct {
	err       string
	byNetwork map[int64]*collector.NetworkRules
}

// readRules runs the four statements. A statement that fails leaves every cluster's rules unread
// with the error, as a list that fails does in the API source, and fails nothing else.
func (r reader) readRules(ctx context.Context, c columns) networkRules {
	if c.rulesUnread != "" {
		return networkRules{err: c.rulesUnread}
	}
	out := networkRules{byNetwork: map[int64]*collector.NetworkRules{}}
	byACL := map[int64][]*collector.NetworkRules{}
	fail := func(what string, err error) networkRules {
		return networkRules{err: "read " + what + ": " + err.Error()}
	}
	if err := r.query(ctx, c.ruleNetworksQuery(), func(res *sql.Rows) error {
		var id int64
		var guestType sql.NullString
		var tier, routed bool
		var acl sql.NullInt64
		if err := res.Scan(&id, &guestType, &tier, &acl, &routed); err != nil {
			return err
		}
		n := &collector.NetworkRules{Type: collector.NetworkTypeOf(guestType.String, tier, routed)}
		if n.Type == collector.NetworkVPCTier {
			n.ACLDefaultAllow = acl.Int64 == aclDefaultAllow
			byACL[acl.Int64] = append(byACL[acl.Int64], n)
		}
		out.byNetwork[id] = n
		return nil
	}); err != nil {
		return fail("networks", err)
	}
	type at struct {
		n *collector.NetworkRules
		i int
	}
	balancers := map[int64]at{} // by firewall_rules.id: where each load-balancer rule was filed
	var rows []ruleRow
	if err := r.query(ctx, networkRulesQuery, func(res *sql.Rows) error {
		var f ruleRow
		if err := res.Scan(&f.id, &f.network, &f.purpose, &f.uuid, &f.state, &f.protocol, &f.start, &f.end,
			&f.ipUUID, &f.address, &f.private, &f.vmUUID, &f.lbPrivate); err != nil {
			return err
		}
		rows = append(rows, f)
		return nil
	}); err != nil {
		return fail("firewall_rules", err)
	}
	for _, f := range rows {
		n := out.byNetwork[f.network]
		if n == nil || collector.RuleRevoked(f.state.String) { // on its way out: CKS's next operation finds it gone
			continue
		}
		id, address, protocol := f.uuid.String, f.ipUUID.String, f.protocol.String
		switch f.purpose.String {
		case "Firewall":
			n.Firewall = append(n.Firewall, collector.FirewallRule{ID: id, AddressID: address, Protocol: protocol,
				StartPort: int(f.start.Int64), EndPort: int(f.end.Int64)})
		case "PortForwarding":
			n.Forwarding = append(n.Forwarding, collector.ForwardingRule{ID: id, AddressID: address, Address: f.address.String,
				Protocol: protocol, VMID: f.vmUUID.String, PublicPort: int(f.start.Int64), PrivatePort: int(f.private.Int64)})
		case "LoadBalancing":
			n.Balancing = append(n.Balancing, collector.BalancingRule{ID: id, AddressID: address, Protocol: protocol,
				PublicPort: int(f.start.Int64), PrivatePort: int(f.lbPrivate.Int64), VMsRead: true})
			balancers[f.id] = at{n, len(n.Balancing) - 1}
		}
	}
	if err := r.query(ctx, balancedVMsQuery, func(res *sql.Rows) error {
		var lb int64
		var vm sql.NullString
		if err := res.Scan(&lb, &vm); err != nil {
			return err
		}
		if b, ok := balancers[lb]; ok && vm.String != "" {
			b.n.Balancing[b.i].VMIDs = append(b.n.Balancing[b.i].VMIDs, vm.String)
		}
		return nil
	}); err != nil {
		return fail("load_balancer_vm_map", err)
	}
	if err := r.query(ctx, aclItemsQuery, func(res *sql.Rows) error {
		var acl int64
		var id, protocol, traffic, action, state sql.NullString
		var start, end sql.NullInt64
		if err := res.Scan(&acl, &id, &protocol, &start, &end, &traffic, &action, &state); err != nil {
			return err
		}
		if collector.RuleRevoked(state.String) {
			return nil
		}
		item := collector.ACLItem{ID: id.String, Protocol: protocol.String, StartPort: int(start.Int64), EndPort: int(end.Int64),
			Ingress: strings.EqualFold(traffic.String, "Ingress"), Allow: strings.EqualFold(action.String, "Allow")}
		for _, n := range byACL[acl] {
			n.ACL = append(n.ACL, item)
		}
		return nil
	}); err != nil {
		return fail("network_acl_item", err)
	}
	return out
}

// ruleRow is one row of networkRulesQuery.
type ruleRow struct {
	id, network                    int64
	purpose, uuid, state, protocol sql.NullString
	start, end                     sql.NullInt64
	ipUUID, address                sql.NullString
	private                        sql.NullInt64
	vmUUID                         sql.NullString
	lbPrivate                      sql.NullInt64
}

// rulesOf are the rules of the cluster's network, or why they were not read.
func (n networkRules) rulesOf(network sql.NullInt64) *collector.NetworkRules {
	if n.err != "" {
		return &collector.NetworkRules{Err: n.err}
	}
	r := n.byNetwork[network.Int64]
	if !network.Valid || r == nil {
		return &collector.NetworkRules{Err: collector.ErrNetworkNotListed}
	}
	return r
}
