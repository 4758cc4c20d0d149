package mariadbtest

import (
	"fmt"
	"time"
)

// rowSet is the rendering of a cloudstacktest.World (render.go): CloudStack's rows by table, each
// with its internal id, the way load writes them. It is not a model of its own: tests build a
// cloudstacktest.World and load it with Database.LoadWorld.
type rowSet struct {
	Domains            []*domainRow
	Accounts           []*accountRow
	Projects           []*projectRow
	Zones              []*zoneRow
	Networks           []*networkRow
	Clusters           []*clusterRow
	VMs                []*vmRow
	Maps               []*mapRow
	IPs                []*ipRow
	Rules              []*ruleRow
	Firewall           []*firewallRow
	Balancers          []*balancerRow
	ACLItems           []*aclItemRow
	Nics               []*nicRow
	KubernetesVersions []*versionRow
	Events             []*eventRow
	Offerings          []*offeringRow

	next map[string]int64
}

// domainRow is a domain row.
type domainRow struct {
	ID   int64
	UUID string
	Name string
}

// accountRow is an account row; Type 5 is a project's own account.
type accountRow struct {
	ID   int64
	UUID string
	Name string
	Type int
}

// accountTypeProject is account.type of a project's account (Account.Type.PROJECT), and
// accountTypeAdmin a root admin's (Account.Type.ADMIN).
const (
	accountTypeProject = 5
	accountTypeAdmin   = 1
)

// projectRow is a projects row and its own account.
type projectRow struct {
	ID      int64
	UUID    string
	Name    string
	Account *accountRow
}

// zoneRow is a data_center row.
type zoneRow struct {
	ID   int64
	UUID string
	Name string
}

// networkRow is a networks row; GuestType is Isolated or Shared.
type networkRow struct {
	ID        int64
	UUID      string
	GuestType string
	// VPC is vpc_id (0: NULL, not a VPC tier) and ACL network_acl_id (0: NULL), the ACL list of a
	// tier: aclDefaultAllow for CloudStack's default_allow.
	VPC, ACL int64
	// Routed puts the network on the offering of network_mode ROUTED (4.20 on).
	Routed bool
	// Listed: the model lists the network (World.Networks); one it does not is written removed,
	// as listNetworks shows no removed network.
	Listed bool
}

// The network_offerings rows the networks name: a NATTED offering and, from 4.20, a ROUTED one
// (network_mode; before 4.20 the column does not exist and both rows are plain offerings).
const (
	offeringNatted int64 = 1
	offeringRouted int64 = 2
)

// aclDefaultDeny and aclDefaultAllow are CloudStack's own ACL lists, default_deny and
// default_allow (schema-410to420.sql lines 2036 and 2041; NetworkACL.DEFAULT_DENY and
// DEFAULT_ALLOW): a tenant's lists come after them.
const (
	aclDefaultDeny  int64 = 1
	aclDefaultAllow int64 = 2
)

// clusterRow is a kubernetes_cluster row.
type clusterRow struct {
	ID           int64
	UUID         string
	Name         string
	State        string
	Type         string // cluster_type, written from 4.19 on
	Zone         *zoneRow
	Network      *networkRow // nil: network_id NULL
	Account      *accountRow
	Domain       *domainRow
	ControlNodes int64
	Nodes        int64 // node_count: the workers
	EtcdNodes    int64 // written from 4.21 on
	Created      time.Time
	Removed      bool
	// Version is the cluster's Kubernetes version; nil: kubernetes_version_id NULL, as for a
	// cluster CKS did not deploy (4.19 on).
	Version *versionRow
	// Offering is service_offering_id; ControlOffering, WorkerOffering and EtcdOffering the node
	// types' (4.21 on). nil writes NULL.
	Offering, ControlOffering, WorkerOffering, EtcdOffering *offeringRow
}

// offeringRow is a service_offering row; before 4.17 its uuid, name and removed are those of the
// disk_offering row of the same id (Version.downgrade).
type offeringRow struct {
	ID      int64
	UUID    string
	Name    string
	State   string // Active or Inactive (4.17 on)
	Removed bool
}

// offeringID is an offering column: NULL without an offering.
func offeringID(o *offeringRow) any {
	if o == nil {
		return nil
	}
	return o.ID
}

// vmRow is a vm_instance row and, unless System, its user_vm row. Removed is the expunge: removed set.
type vmRow struct {
	ID           int64
	UUID         string
	Name         string
	InstanceName string
	DisplayName  string
	State        string
	Account      *accountRow
	Domain       *domainRow
	Created      time.Time
	Removed      bool
	System       bool
	// Details are its rows of the VM details table (Version.DetailsTable), e.g. controlNodeLoginUser.
	Details map[string]string
	// Type is user_vm.user_vm_type (4.16 on; "UserVM" where empty), "cksnode" for CKS's VMs.
	Type string
}

// mapRow is a kubernetes_cluster_vm_map row; VMID may name no VM. The flags are written only where
// the schema version has their columns.
type mapRow struct {
	ID        int64
	ClusterID int64
	VMID      int64
	Control   bool
	Etcd      bool
	External  bool
	// NodeVersion is kubernetes_node_version (4.21 on): the node's own Kubernetes version in
	// CloudStack; empty writes NULL.
	NodeVersion string
}

// ipRow is a user_ip_address row associated with a network.
type ipRow struct {
	ID        int64
	UUID      string
	Address   string
	Network   *networkRow
	SourceNAT bool
	Removed   bool
}

// ruleRow is a firewall_rules row of purpose PortForwarding and its
// port_forwarding_rules row.
type ruleRow struct {
	ID          int64
	UUID        string
	IP          *ipRow
	Network     *networkRow
	VM          *vmRow
	PublicPort  int
	PrivatePort int
}

// firewallRow is a firewall_rules row of purpose Firewall: an ingress rule of a public address.
type firewallRow struct {
	ID                 int64
	UUID               string
	IP                 *ipRow
	Network            *networkRow
	Protocol           string
	StartPort, EndPort int
}

// balancerRow is a firewall_rules row of purpose LoadBalancing, its load_balancing_rules row and
// its load_balancer_vm_map rows (VMs).
type balancerRow struct {
	ID                      int64
	UUID                    string
	IP                      *ipRow
	Network                 *networkRow
	PublicPort, PrivatePort int
	VMs                     []*vmRow
}

// aclItemRow is a network_acl_item row of the ACL list ACL.
type aclItemRow struct {
	ID                  int64
	UUID                string
	ACL                 int64
	Protocol            string
	StartPort, EndPort  int
	TrafficType, Action string
}

// nicRow is a nics row.
type nicRow struct {
	ID      int64
	VM      *vmRow
	Network *networkRow
	Address string
	Default bool
	Removed bool
}

// id hands out internal ids per table, starting at 1 (map rows start at 101, so that a map row's
// id and the VM id it names differ in tests; a tenant's ACL lists after CloudStack's two).
func (w *rowSet) id(table string) int64 {
	if w.next[table] == 0 {
		switch table {
		case "map":
			w.next[table] = 100
		case "acl":
			w.next[table] = 2
		}
	}
	w.next[table]++
	return w.next[table]
}

// uuid is a recognisable uuid: the table's number, then the internal id.
func uuid(table int, id int64) string {
	return fmt.Sprintf("%08d-0000-4000-8000-%012d", table, id)
}

// addMapRow adds a row to a cluster's VM map; vmID need not exist.
func (w *rowSet) addMapRow(c *clusterRow, vmID int64) *mapRow {
	r := &mapRow{ID: w.id("map"), ClusterID: c.ID, VMID: vmID}
	w.Maps = append(w.Maps, r)
	return r
}

// addPortForward adds a TCP port-forwarding rule from ip:public to vm:private on network n.
func (w *rowSet) addPortForward(uuid string, ip *ipRow, n *networkRow, vm *vmRow, public, private int) *ruleRow {
	r := &ruleRow{ID: w.id("rule"), UUID: uuid, IP: ip, Network: n, VM: vm, PublicPort: public, PrivatePort: private}
	w.Rules = append(w.Rules, r)
	return r
}

// addNic adds a NIC of vm on network n.
func (w *rowSet) addNic(vm *vmRow, n *networkRow, address string, isDefault bool) *nicRow {
	nic := &nicRow{ID: w.id("nic"), VM: vm, Network: n, Address: address, Default: isDefault}
	w.Nics = append(w.Nics, nic)
	return nic
}

// eventRow is an event row, as CloudStack writes one when a command is submitted (see
// cloudstacktest.Event for what each cluster command records).
type eventRow struct {
	ID           int64
	UUID         string
	AccountID    int64 // the owner of the entity the command acts on
	Type         string
	State        string
	Description  string
	ResourceID   any // the resource's internal id, or nil
	ResourceType any
	Created      time.Time
	Archived     bool
}

// versionRow is a kubernetes_supported_version row: a Kubernetes version CKS can deploy,
// with its semantic version. Removed is deleteKubernetesSupportedVersion's removed column.
type versionRow struct {
	ID              int64
	UUID            string
	Name            string
	SemanticVersion string
	Created         time.Time
	Removed         bool
}

// versionID is a cluster's kubernetes_version_id: NULL without a version.
func versionID(v *versionRow) any {
	if v == nil {
		return nil
	}
	return v.ID
}

// nullString writes "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
