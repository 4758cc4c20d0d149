package mariadbtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// LoadWorld writes w, the one model of a cloud that the fake API serves too, as CloudStack's
// database holds it, with the columns d's schema version has. It replaces the rows d held, in one
// transaction: a test changes the model and loads it again, and a reader sees the rows before or
// after, never a mix. The caller holds the world still: under Server.Read when a server serves it.
func (d *Database) LoadWorld(t testing.TB, w *cloudstacktest.World) {
	t.Helper()
	render(w).load(t, d)
}

// NewDatabaseOf creates a database with the schema of w's release line (SchemaOf; the newest
// when w names none) and loads w into it.
func (db *DB) NewDatabaseOf(t testing.TB, w *cloudstacktest.World) *Database {
	t.Helper()
	d := db.NewDatabaseAt(t, SchemaOf(w.Release))
	d.LoadWorld(t, w)
	return d
}

// renderer turns the API's view of the world into rows. The model names accounts, domains, zones,
// networks and addresses by uuid and name, as the API does; the renderer gives each its row, with
// internal ids handed out in the order it meets them. VMs, clusters and Kubernetes versions keep
// the model's internal ids, and map rows name the model's VM ids as they are, so rows for VMs
// that do not exist stay dangling. What the model leaves out, the renderer fills the way CKS
// writes it:
//   - a VM with no NetworkID has its NIC on the network of the first cluster whose map names it;
//   - a network the model does not list (World.Networks) is Isolated, and removed, as listNetworks
//     does not show it;
//   - a cluster's IPAddressID is the source NAT address of its network, unless the model lists
//     it among PublicIPs; a rule's address the model does not list is a public IP of the rule's
//     network that is not its source NAT (a VPC tier's own, 4.18.1+);
//   - control_node is the VM's ControlNode flag; in a cluster none of whose VMs has it, the
//     first ControlNodes map rows have it, as CKS writes the control nodes first;
//   - a project's account, when the model names none, is called as CloudStack calls it,
//     PrjAcct-<project>-<project id>.
type renderer struct {
	cw       *cloudstacktest.World
	w        *rowSet
	domains  map[string]*domainRow // by uuid
	accounts map[[2]string]*accountRow
	projects map[string]*projectRow // by uuid
	zones    map[string]*zoneRow    // by uuid
	networks map[string]*networkRow // by uuid
	ips      map[string]*ipRow
	vms      map[int64]*vmRow
	byUUID   map[string]*vmRow
	versions map[string]*versionRow  // by uuid
	clusters map[string]*clusterRow  // by uuid
	offers   map[string]*offeringRow // by uuid
	vpcs     map[string]int64        // VPC ids by uuid
	acls     map[string]int64        // ACL list ids by uuid
}

func render(cw *cloudstacktest.World) *rowSet {
	r := &renderer{cw: cw, w: &rowSet{next: make(map[string]int64)}, domains: map[string]*domainRow{},
		accounts: map[[2]string]*accountRow{}, projects: map[string]*projectRow{}, zones: map[string]*zoneRow{},
		networks: map[string]*networkRow{}, ips: map[string]*ipRow{}, vms: map[int64]*vmRow{}, byUUID: map[string]*vmRow{},
		versions: map[string]*versionRow{}, clusters: map[string]*clusterRow{}, offers: map[string]*offeringRow{},
		vpcs: map[string]int64{}, acls: map[string]int64{cloudstacktest.DefaultAllowACL: aclDefaultAllow}}
	for _, o := range cw.ServiceOfferings {
		if o == nil {
			continue
		}
		row := &offeringRow{ID: o.InternalID, UUID: o.ID, Name: o.Name, State: o.State, Removed: o.Removed}
		r.offers[o.ID] = row
		r.w.Offerings = append(r.w.Offerings, row)
	}
	// CloudStack's own accounts come first, system (1) and admin (2) of the ROOT domain, as
	// ConfigurationServerImpl.saveUser creates them: what they record is CloudStack's and its root
	// admin's.
	for _, name := range []string{"system", cloudstacktest.AdminAccount} {
		a := &accountRow{ID: r.w.id("account"), Name: name, Type: accountTypeAdmin}
		a.UUID = uuid(2, a.ID)
		r.w.Accounts = append(r.w.Accounts, a)
	}
	for _, v := range cw.KubernetesVersions {
		if v == nil {
			continue
		}
		kv := &versionRow{ID: v.InternalID, UUID: v.ID, Name: v.Name, SemanticVersion: v.SemanticVersion,
			Created: v.Created, Removed: v.Removed}
		r.versions[v.ID] = kv
		r.w.KubernetesVersions = append(r.w.KubernetesVersions, kv)
	}
	for _, n := range cw.Networks {
		if n != nil {
			r.describeNetwork(n)
		}
	}
	for _, ip := range cw.PublicIPs {
		if ip != nil {
			r.publicIP(ip.ID, ip.Address, r.network(ip.NetworkID), ip.SourceNAT)
		}
	}
	vmIDs := make([]int64, 0, len(cw.VMs))
	for id, v := range cw.VMs {
		if v != nil {
			vmIDs = append(vmIDs, id)
		}
	}
	slices.Sort(vmIDs)
	for _, id := range vmIDs {
		r.vm(cw.VMs[id])
	}
	for _, c := range cw.Clusters {
		if c != nil {
			r.cluster(c)
		}
	}
	for _, id := range vmIDs {
		r.nic(cw.VMs[id])
	}
	for _, rule := range cw.PortForwardingRules {
		if rule != nil {
			r.rule(rule)
		}
	}
	r.networkRules()
	for _, e := range cw.Events {
		if e != nil {
			r.event(e)
		}
	}
	return r.w
}

// domain is the row of a domain uuid; an empty uuid is the domain of that name met first (ROOT
// when the name is empty too), as the model leaves the domain of the admin's events unnamed.
func (r *renderer) domain(id, name string) *domainRow {
	if name == "" {
		name = "ROOT"
	}
	if id == "" {
		for _, d := range r.w.Domains {
			if d.Name == name {
				return d
			}
		}
	}
	if d := r.domains[id]; d != nil {
		return d
	}
	d := &domainRow{ID: r.w.id("domain"), UUID: id, Name: name}
	if d.UUID == "" {
		d.UUID = uuid(1, d.ID)
	}
	r.domains[d.UUID] = d
	r.w.Domains = append(r.w.Domains, d)
	return d
}

// owner is the account row of a resource: its project's account when it names a project, else
// the account of that name in its domain.
func (r *renderer) owner(account, domainID, domain, projectID, project string) (*accountRow, *domainRow) {
	d := r.domain(domainID, domain)
	if projectID != "" {
		p := r.projects[projectID]
		if p == nil {
			p = &projectRow{ID: r.w.id("project"), UUID: projectID, Name: project}
			name := account
			if name == "" {
				name = fmt.Sprintf("PrjAcct-%s-%d", project, p.ID)
			}
			p.Account = &accountRow{ID: r.w.id("account"), Name: name, Type: accountTypeProject}
			p.Account.UUID = uuid(2, p.Account.ID)
			r.projects[projectID] = p
			r.w.Projects = append(r.w.Projects, p)
			r.w.Accounts = append(r.w.Accounts, p.Account)
		}
		return p.Account, d
	}
	if d.Name == "ROOT" && (account == "system" || account == cloudstacktest.AdminAccount) {
		for _, a := range r.w.Accounts[:2] {
			if a.Name == account {
				return a, d
			}
		}
	}
	key := [2]string{d.UUID, account}
	if a := r.accounts[key]; a != nil {
		return a, d
	}
	a := &accountRow{ID: r.w.id("account"), Name: account}
	a.UUID = uuid(2, a.ID)
	r.accounts[key] = a
	r.w.Accounts = append(r.w.Accounts, a)
	return a, d
}

func (r *renderer) zone(id, name string) *zoneRow {
	if z := r.zones[id]; z != nil {
		return z
	}
	z := &zoneRow{ID: r.w.id("zone"), UUID: id, Name: name}
	if z.UUID == "" {
		z.UUID = uuid(4, z.ID)
	}
	r.zones[id] = z
	r.w.Zones = append(r.w.Zones, z)
	return z
}

// network is the row of a network uuid, nil for none.
func (r *renderer) network(id string) *networkRow {
	if id == "" {
		return nil
	}
	if n := r.networks[id]; n != nil {
		return n
	}
	n := &networkRow{ID: r.w.id("network"), UUID: id, GuestType: "Isolated"}
	r.networks[id] = n
	r.w.Networks = append(r.w.Networks, n)
	return n
}

func (r *renderer) vm(v *cloudstacktest.VM) {
	owner, domain := r.owner(v.Account, v.DomainID, v.Domain, v.ProjectID, v.Project)
	m := &vmRow{ID: v.InternalID, UUID: v.ID, Name: v.Name, DisplayName: v.DisplayName,
		InstanceName: fmt.Sprintf("i-%d-%d-VM", owner.ID, v.InternalID), State: v.State,
		Account: owner, Domain: domain, Created: v.Created, Removed: v.Removed, System: v.System, Details: v.Details, Type: v.Type}
	r.vms[v.InternalID], r.byUUID[v.ID] = m, m
	r.w.VMs = append(r.w.VMs, m)
}

func (r *renderer) cluster(c *cloudstacktest.Cluster) {
	owner, domain := r.owner(c.Account, c.DomainID, c.Domain, c.ProjectID, c.Project)
	k := &clusterRow{ID: c.InternalID, UUID: c.ID, Name: c.Name, State: c.State, Type: c.ClusterType,
		Zone: r.zone(c.ZoneID, c.ZoneName), Network: r.network(c.NetworkID), Account: owner, Domain: domain,
		ControlNodes: c.ControlNodes, Nodes: c.Size, EtcdNodes: c.EtcdNodes, Created: c.Created,
		Removed: c.Removed, Version: r.versions[c.KubernetesVersionID], Offering: r.offers[c.ServiceOfferingID],
		ControlOffering: r.offers[c.ControlOfferingID], WorkerOffering: r.offers[c.WorkerOfferingID], EtcdOffering: r.offers[c.EtcdOfferingID]}
	r.clusters[c.ID] = k
	r.w.Clusters = append(r.w.Clusters, k)
	flagged := slices.ContainsFunc(c.VMMap, func(id int64) bool { v := r.cw.VMs[id]; return v != nil && v.ControlNode })
	for i, id := range c.VMMap {
		row := r.w.addMapRow(k, id)
		row.Control = !flagged && int64(i) < c.ControlNodes
		if v := r.cw.VMs[id]; v != nil {
			row.Control = row.Control || v.ControlNode
			row.Etcd, row.External, row.NodeVersion = v.EtcdNode, v.ExternalNode, v.KubernetesNodeVersion
		}
	}
	if c.IPAddressID != "" && k.Network != nil {
		r.publicIP(c.IPAddressID, c.IPAddress, k.Network, true)
	}
}

// publicIP is the user_ip_address row of an address uuid, written the first time it is met: the
// model's PublicIPs come first.
func (r *renderer) publicIP(id, address string, n *networkRow, sourceNAT bool) *ipRow {
	if ip := r.ips[id]; ip != nil {
		return ip
	}
	ip := &ipRow{ID: r.w.id("ip"), UUID: id, Address: address, Network: n, SourceNAT: sourceNAT}
	if ip.UUID == "" {
		ip.UUID = uuid(8, ip.ID)
	}
	r.ips[id] = ip
	r.w.IPs = append(r.w.IPs, ip)
	return ip
}

// nic writes the VM's default NIC, on its network or its cluster's, then its other NICs.
func (r *renderer) nic(v *cloudstacktest.VM) {
	vm, n := r.vms[v.InternalID], r.network(v.NetworkID)
	if n == nil {
		for _, c := range r.cw.Clusters {
			if c != nil && slices.Contains(c.VMMap, v.InternalID) {
				n = r.clusters[c.ID].Network
				break
			}
		}
	}
	if n != nil {
		r.w.addNic(vm, n, v.IPAddress, true)
	}
	for _, o := range v.OtherNICs {
		if n := r.network(o.NetworkID); n != nil {
			r.w.addNic(vm, n, o.IPAddress, false).Removed = o.Removed
		}
	}
}

func (r *renderer) rule(rule *cloudstacktest.PortForwardingRule) {
	vm := r.byUUID[rule.VirtualMachineID]
	if vm == nil {
		return // port_forwarding_rules.instance_id names a VM
	}
	ip := r.publicIP(rule.IPAddressID, rule.IPAddress, r.network(rule.NetworkID), false)
	r.w.addPortForward(rule.ID, ip, r.ruleNetwork(rule.NetworkID, ip), vm, rule.PublicPort, rule.PrivatePort)
}

// event writes an event row under its owner's account; a resource the model names by uuid (a
// cluster or a VM) is written by its internal id, as event.resource_id holds it.
func (r *renderer) event(e *cloudstacktest.Event) {
	owner, _ := r.owner(e.Account, e.DomainID, e.Domain, e.ProjectID, "")
	row := &eventRow{ID: r.w.id("event"), UUID: e.ID, AccountID: owner.ID, Type: e.Type, State: e.State,
		Description: e.Description, Created: e.Created, Archived: e.Archived}
	if c := r.clusters[e.ResourceID]; c != nil && e.ResourceType == "KubernetesCluster" {
		row.ResourceID, row.ResourceType = c.ID, e.ResourceType
	}
	if vm := r.byUUID[e.ResourceID]; vm != nil && e.ResourceType == "VirtualMachine" {
		row.ResourceID, row.ResourceType = vm.ID, e.ResourceType
	}
	r.w.Events = append(r.w.Events, row)
}
