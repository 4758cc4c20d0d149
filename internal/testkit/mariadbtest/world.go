package mariadbtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// World is a set of CloudStack rows, built in memory with the Add methods, changed freely by the
// test, then written with Load. Every row has a fixed internal id and uuid so tests can state the
// inventory they expect.
type World struct {
	Domains  []*Domain
	Accounts []*Account
	Projects []*Project
	Zones    []*Zone
	Networks []*Network
	Clusters []*Cluster
	VMs      []*VM
	Maps     []*MapRow
	IPs      []*PublicIP
	Rules    []*PortForwardingRule
	Nics     []*Nic
	// KubernetesVersions are the kubernetes_supported_version rows (versions.go).
	KubernetesVersions []*KubernetesVersion
	// Events are event rows (AddOperationEvent).
	Events []*Event

	Root *Domain // ROOT, the domain of every account the builders create
	Zone *Zone   // zone1, the zone of every cluster the builders create

	next map[string]int64
}

// Domain is a domain row.
type Domain struct {
	ID   int64
	UUID string
	Name string
}

// Account is an account row; Type 5 is a project's own account.
type Account struct {
	ID   int64
	UUID string
	Name string
	Type int
}

// AccountTypeProject is account.type of a project's account (Account.Type.PROJECT).
const AccountTypeProject = 5

// Project is a projects row and its own account.
type Project struct {
	ID      int64
	UUID    string
	Name    string
	Account *Account
}

// Zone is a data_center row.
type Zone struct {
	ID   int64
	UUID string
	Name string
}

// Network is a networks row; GuestType is Isolated or Shared.
type Network struct {
	ID        int64
	UUID      string
	GuestType string
}

// Cluster is a kubernetes_cluster row.
type Cluster struct {
	ID           int64
	UUID         string
	Name         string
	State        string
	Type         string // cluster_type, written from 4.19 on
	Zone         *Zone
	Network      *Network // nil: network_id NULL
	Account      *Account
	Domain       *Domain
	ControlNodes int64
	Nodes        int64 // node_count: the workers
	EtcdNodes    int64 // written from 4.21 on
	Created      time.Time
	Removed      bool
	// Version is the cluster's Kubernetes version; nil: kubernetes_version_id NULL, as for a
	// cluster CKS did not deploy (4.19 on).
	Version *KubernetesVersion
}

// VM is a vm_instance row and, unless System, its user_vm row. Removed is the expunge: removed set.
type VM struct {
	ID           int64
	UUID         string
	Name         string
	InstanceName string
	DisplayName  string
	State        string
	Account      *Account
	Domain       *Domain
	Created      time.Time
	Removed      bool
	System       bool
	// Details are its user_vm_details rows, e.g. controlNodeLoginUser.
	Details map[string]string
}

// MapRow is a kubernetes_cluster_vm_map row; VMID may name no VM. The flags are written only where
// the schema version has their columns.
type MapRow struct {
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

// PublicIP is a user_ip_address row associated with a network.
type PublicIP struct {
	ID        int64
	UUID      string
	Address   string
	Network   *Network
	SourceNAT bool
	Removed   bool
}

// PortForwardingRule is a firewall_rules row of purpose PortForwarding and its
// port_forwarding_rules row.
type PortForwardingRule struct {
	ID          int64
	IP          *PublicIP
	VM          *VM
	PublicPort  int
	PrivatePort int
}

// Nic is a nics row.
type Nic struct {
	ID      int64
	VM      *VM
	Network *Network
	Address string
	Default bool
	Removed bool
}

// NewWorld holds the ROOT domain and one zone.
func NewWorld() *World {
	w := &World{next: make(map[string]int64)}
	w.Root = &Domain{ID: w.id("domain"), Name: "ROOT"}
	w.Root.UUID = uuid(1, w.Root.ID)
	w.Domains = append(w.Domains, w.Root)
	w.Zone = &Zone{ID: w.id("zone"), Name: "zone1"}
	w.Zone.UUID = uuid(4, w.Zone.ID)
	w.Zones = append(w.Zones, w.Zone)
	return w
}

// id hands out internal ids per table, starting at 1 (VMs start at 11, so that VM ids and map row
// ids differ in tests).
func (w *World) id(table string) int64 {
	if w.next[table] == 0 && table == "vm" {
		w.next[table] = 10
	}
	w.next[table]++
	return w.next[table]
}

// uuid is a recognisable uuid: the table's number, then the internal id.
func uuid(table int, id int64) string {
	return fmt.Sprintf("%08d-0000-4000-8000-%012d", table, id)
}

// AddAccount adds a user account in ROOT.
func (w *World) AddAccount(name string) *Account {
	a := &Account{ID: w.id("account"), Name: name}
	a.UUID = uuid(2, a.ID)
	w.Accounts = append(w.Accounts, a)
	return a
}

// AddProject adds a project in ROOT with its account, named as CloudStack names it.
func (w *World) AddProject(name string) *Project {
	p := &Project{ID: w.id("project"), Name: name}
	p.UUID = uuid(3, p.ID)
	a := &Account{ID: w.id("account"), Type: AccountTypeProject, Name: fmt.Sprintf("PrjAcct-%s-%d", name, p.ID)}
	a.UUID = uuid(2, a.ID)
	p.Account = a
	w.Accounts = append(w.Accounts, a)
	w.Projects = append(w.Projects, p)
	return p
}

// AddNetwork adds a guest network, Isolated or Shared.
func (w *World) AddNetwork(guestType string) *Network {
	n := &Network{ID: w.id("network"), GuestType: guestType}
	n.UUID = uuid(5, n.ID)
	w.Networks = append(w.Networks, n)
	return n
}

// AddVM adds a user VM of owner in ROOT.
func (w *World) AddVM(name, state string, owner *Account, created time.Time) *VM {
	v := &VM{ID: w.id("vm"), Name: name, State: state, Account: owner, Domain: w.Root, Created: created}
	v.UUID = uuid(7, v.ID)
	v.InstanceName = fmt.Sprintf("i-%d-%d-VM", owner.ID, v.ID)
	v.DisplayName = "display " + name
	w.VMs = append(w.VMs, v)
	return v
}

// AddMapRow adds a row to a cluster's VM map; vmID need not exist.
func (w *World) AddMapRow(c *Cluster, vmID int64) *MapRow {
	r := &MapRow{ID: w.id("map"), ClusterID: c.ID, VMID: vmID}
	w.Maps = append(w.Maps, r)
	return r
}

// DeleteMapRow removes a row, as scenario 2 of docs/scenarios.md does with a worker's row.
func (w *World) DeleteMapRow(r *MapRow) {
	for i, m := range w.Maps {
		if m == r {
			w.Maps = append(w.Maps[:i], w.Maps[i+1:]...)
			return
		}
	}
}

// AddSourceNAT adds the source NAT address of a network.
func (w *World) AddSourceNAT(n *Network, address string) *PublicIP {
	ip := &PublicIP{ID: w.id("ip"), Address: address, Network: n, SourceNAT: true}
	ip.UUID = uuid(8, ip.ID)
	w.IPs = append(w.IPs, ip)
	return ip
}

// AddPublicIP adds a public address acquired for network n that is not its source NAT, as the
// public IP of its own that 4.18.1+ acquires for a cluster on a VPC tier.
func (w *World) AddPublicIP(n *Network, address string) *PublicIP {
	ip := &PublicIP{ID: w.id("ip"), Address: address, Network: n}
	ip.UUID = uuid(8, ip.ID)
	w.IPs = append(w.IPs, ip)
	return ip
}

// AddPortForward adds a TCP port-forwarding rule from ip:public to vm:private.
func (w *World) AddPortForward(ip *PublicIP, vm *VM, public, private int) *PortForwardingRule {
	r := &PortForwardingRule{ID: w.id("rule"), IP: ip, VM: vm, PublicPort: public, PrivatePort: private}
	w.Rules = append(w.Rules, r)
	return r
}

// DeleteRule removes a port-forwarding rule.
func (w *World) DeleteRule(r *PortForwardingRule) {
	for i, x := range w.Rules {
		if x == r {
			w.Rules = append(w.Rules[:i], w.Rules[i+1:]...)
			return
		}
	}
}

// AddNic adds a NIC of vm on network n.
func (w *World) AddNic(vm *VM, n *Network, address string, isDefault bool) *Nic {
	nic := &Nic{ID: w.id("nic"), VM: vm, Network: n, Address: address, Default: isDefault}
	w.Nics = append(w.Nics, nic)
	return nic
}

// ClusterSpec describes a CKS cluster as createKubernetesCluster leaves it.
type ClusterSpec struct {
	Name    string
	Owner   *Account // a project's Account for a project cluster
	Control int
	Workers int
	Etcd    int
	// Shared puts the cluster on a shared network: no source NAT address, no port forwarding; the
	// nodes are reached on their own addresses.
	Shared  bool
	Created time.Time
	State   string // Running when empty
	// Pre416 names the control VMs <name>-master (one) or <name>-master-<i> (several) and the
	// workers <name>-node-<i>, as releases before 4.16 did.
	Pre416 bool
	// LoginUser, when set, is every node's controlNodeLoginUser detail.
	LoginUser string
}

// ClusterSet is what AddCluster created.
type ClusterSet struct {
	Cluster *Cluster
	Network *Network
	Control []*VM
	Workers []*VM
	Etcd    []*VM
	Map     []*MapRow // control, then etcd, then workers: CKS's order
	IP      *PublicIP // nil on a shared network
	Rules   []*PortForwardingRule
	Nics    []*Nic
}

// VMs returns the cluster's VMs in map order.
func (s *ClusterSet) VMs() []*VM {
	var out []*VM
	out = append(out, s.Control...)
	out = append(out, s.Etcd...)
	return append(out, s.Workers...)
}

// AddCluster adds a cluster the way CKS builds one: its network; VMs named <name>-control-<hex>,
// <name>-etcd-<i>-<hex> and <name>-node-<hex>, each with a NIC; one map row per VM. On an isolated
// network also the source NAT address and a port-forwarding rule per VM, public port 2222+i to 22
// (control VMs first).
func (w *World) AddCluster(spec ClusterSpec) *ClusterSet {
	if spec.State == "" {
		spec.State = "Running"
	}
	guest := "Isolated"
	if spec.Shared {
		guest = "Shared"
	}
	s := &ClusterSet{Network: w.AddNetwork(guest)}
	c := &Cluster{ID: w.id("cluster"), Name: spec.Name, State: spec.State, Type: "CloudManaged",
		Zone: w.Zone, Network: s.Network, Account: spec.Owner, Domain: w.Root,
		ControlNodes: int64(spec.Control), Nodes: int64(spec.Workers), EtcdNodes: int64(spec.Etcd),
		Created: spec.Created}
	c.UUID = uuid(6, c.ID)
	w.Clusters = append(w.Clusters, c)
	s.Cluster = c

	prefix := strings.ToLower(spec.Name)
	stamp := spec.Created.UnixMilli()
	control := func(i int) string { return fmt.Sprintf("%s-control-%x", prefix, stamp+int64(i)) }
	worker := func(i int) string { return fmt.Sprintf("%s-node-%x", prefix, stamp+200+int64(i)) }
	if spec.Pre416 {
		control = func(i int) string { return cloudstacktest.Pre416ControlName(prefix, i, spec.Control) }
		worker = func(i int) string { return cloudstacktest.Pre416WorkerName(prefix, i) }
	}
	for i := 0; i < spec.Control; i++ {
		s.Control = append(s.Control, w.AddVM(control(i), "Running", spec.Owner, spec.Created))
	}
	for i := 0; i < spec.Etcd; i++ {
		s.Etcd = append(s.Etcd, w.AddVM(fmt.Sprintf("%s-etcd-%d-%x", spec.Name, i+1, stamp+100+int64(i)), "Running", spec.Owner, spec.Created))
	}
	for i := 0; i < spec.Workers; i++ {
		s.Workers = append(s.Workers, w.AddVM(worker(i), "Running", spec.Owner, spec.Created))
	}
	if spec.LoginUser != "" {
		for _, v := range s.VMs() {
			v.Details = map[string]string{"controlNodeLoginUser": spec.LoginUser}
		}
	}
	for _, v := range s.Control {
		r := w.AddMapRow(c, v.ID)
		r.Control = true
		s.Map = append(s.Map, r)
	}
	for _, v := range s.Etcd {
		r := w.AddMapRow(c, v.ID)
		r.Etcd = true
		s.Map = append(s.Map, r)
	}
	for _, v := range s.Workers {
		s.Map = append(s.Map, w.AddMapRow(c, v.ID))
	}
	for i, v := range s.VMs() {
		s.Nics = append(s.Nics, w.AddNic(v, s.Network, fmt.Sprintf("10.%d.%d.%d", c.ID/250+1, c.ID%250, i+10), true))
	}
	if !spec.Shared {
		s.IP = w.AddSourceNAT(s.Network, fmt.Sprintf("203.0.%d.%d", 113+c.ID/250, c.ID%250+1))
		for i, v := range s.VMs() {
			s.Rules = append(s.Rules, w.AddPortForward(s.IP, v, 2222+i, 22))
		}
	}
	return s
}
