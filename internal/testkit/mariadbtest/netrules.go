package mariadbtest

import (
	"cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// describeNetwork writes what the model says of a network onto its row: its guest type, its VPC
// and the tier's ACL list (default_allow as CloudStack's own list 2, a tenant's list by an id
// of its own), and whether its offering is routed.
func (r *renderer) describeNetwork(n *cloudstacktest.Network) {
	row := r.network(n.ID)
	row.GuestType, row.Routed, row.Listed = n.GuestType, n.Routed, true
	if n.VPCID != "" {
		row.VPC = idOf(r.vpcs, n.VPCID, func() int64 { return r.w.id("vpc") })
	}
	if n.ACLID != "" {
		row.ACL = idOf(r.acls, n.ACLID, func() int64 { return r.w.id("acl") })
	}
}

// idOf is the id of uuid in ids, handed out by next the first time.
func idOf(ids map[string]int64, uuid string, next func() int64) int64 {
	if id, ok := ids[uuid]; ok {
		return id
	}
	ids[uuid] = next()
	return ids[uuid]
}

// ruleNetwork is the network a rule is on (firewall_rules.network_id is NOT NULL): the model's,
// else its address's, else a network of its own that no cluster is on.
func (r *renderer) ruleNetwork(id string, ip *ipRow) *networkRow {
	if n := r.network(id); n != nil {
		return n
	}
	if ip.Network != nil {
		return ip.Network
	}
	return r.network("rule-network-" + ip.UUID)
}

// networkRules writes the model's firewall rules, load-balancer rules with their VMs (VMs the
// model does not have are left out, as load_balancer_vm_map.instance_id names a VM) and ACL items,
// each in the model's order.
func (r *renderer) networkRules() {
	for _, f := range r.cw.FirewallRules {
		if f == nil {
			continue
		}
		ip := r.publicIP(f.IPAddressID, f.IPAddress, r.network(f.NetworkID), false)
		r.w.Firewall = append(r.w.Firewall, &firewallRow{ID: r.w.id("rule"), UUID: f.ID, IP: ip, Network: r.ruleNetwork(f.NetworkID, ip),
			Protocol: cmp.Or(f.Protocol, "tcp"), StartPort: f.StartPort, EndPort: f.EndPort})
	}
	for _, lb := range r.cw.LoadBalancerRules {
		if lb == nil {
			continue
		}
		ip := r.publicIP(lb.PublicIPID, lb.PublicIP, r.network(lb.NetworkID), false)
		row := &balancerRow{ID: r.w.id("rule"), UUID: lb.ID, IP: ip, Network: r.ruleNetwork(lb.NetworkID, ip),
			PublicPort: lb.PublicPort, PrivatePort: lb.PrivatePort}
		for _, id := range lb.VMIDs {
			if vm := r.byUUID[id]; vm != nil {
				row.VMs = append(row.VMs, vm)
			}
		}
		r.w.Balancers = append(r.w.Balancers, row)
	}
	for _, a := range r.cw.NetworkACLItems {
		if a == nil {
			continue
		}
		r.w.ACLItems = append(r.w.ACLItems, &aclItemRow{ID: r.w.id("acl item"), UUID: a.ID,
			ACL: idOf(r.acls, a.ACLID, func() int64 { return r.w.id("acl") }), Protocol: a.Protocol,
			StartPort: a.StartPort, EndPort: a.EndPort, TrafficType: a.TrafficType, Action: a.Action})
	}
}
