package cloudstacktest

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"
)

// World is the fake's database: the rows CloudStack keeps in its tables, as plain structs that a
// test builds, mutates and inspects under the server's lock (Server.Update, Server.Read). The
// server answers every API call from it, so what a test puts here is exactly what the API shows,
// filtered the way CloudStack filters it.
type World struct {
	Clusters            []*Cluster    // kubernetes_cluster rows, in id order
	VMs                 map[int64]*VM // vm_instance rows by internal id
	PortForwardingRules []*PortForwardingRule
	// FirewallRules, LoadBalancerRules and NetworkACLItems are the other rules of the networks
	// (netrules.go); BuildCluster adds those CKS creates.
	FirewallRules     []*FirewallRule
	LoadBalancerRules []*LoadBalancerRule
	NetworkACLItems   []*NetworkACLItem
	Alerts            []*Alert
	Annotations       []*Annotation
	Events            []*Event // see AddEvent
	// Webhooks and WebhookDeliveries are the webhook plugin's rows (4.20 on; webhooks.go).
	Webhooks          []*WebhookRecord
	WebhookDeliveries []*DeliveryRecord

	PublicIPs []*PublicIP
	// Networks are the networks rows a test describes; a network the rows name but this list
	// does not is an Isolated one to the database source, and is not listed by listNetworks.
	Networks []*Network
	// NetworkACLLists are the ACL lists of the VPCs (BuildCluster adds a tier's own) and the
	// global lists a root admin added, after CloudStack's default_deny and default_allow
	// (acllists.go); DefaultAllowName renames default_allow (empty: default_allow).
	NetworkACLLists  []*NetworkACLList
	DefaultAllowName string

	// KubernetesVersions are the kubernetes_supported_version rows (kubeversions.go).
	KubernetesVersions []*KubernetesVersion

	// ServiceOfferings are the service_offering rows (offerings.go).
	ServiceOfferings []*ServiceOffering

	// Release is the release line whose answers the server gives (Release414 ...); empty
	// answers as the newest.
	Release string

	// MaxPageSize is the global setting default.page.size: the largest pagesize a list call may
	// ask for and the page size used when it names none. Zero means DefaultPageSize.
	MaxPageSize int

	seq int64 // last number handed out by newUUID
	// ruleSeq numbers what BuildCluster adds beyond the rows it always made (networkUUID), so
	// that the uuids of the VMs, clusters and addresses stay what tests know them as.
	ruleSeq int64

	// sorted caches sortedVMs until the next Server.Update (the only way the rows change while
	// the server serves): the scale benchmark pages through fifty thousand VMs, and sorting them
	// for every page cost the fake more than the latency it models.
	sorted      []*VM
	sortedValid bool
}

// Cluster is a kubernetes_cluster row. VMMap holds the kubernetes_cluster_vm_map rows (vm_instance
// ids in row order) separately from the VMs so a test can leave rows dangling, as a half-failed
// scale-down does in a real installation.
type Cluster struct {
	ID          string
	InternalID  int64
	Name        string
	State       string
	ClusterType string // CloudManaged or ExternalManaged
	ZoneID      string
	ZoneName    string
	Account     string
	AccountID   string
	DomainID    string
	Domain      string
	ProjectID   string
	Project     string
	NetworkID   string
	IPAddress   string
	IPAddressID string
	// KeyPair is the SSH keypair name CloudStack reports for the cluster; optional.
	KeyPair string
	// Endpoint is the Kubernetes API URL; empty means https://<IPAddress>:6443/ when IPAddress is set.
	Endpoint     string
	ControlNodes int64
	Size         int64
	EtcdNodes    int64
	Created      time.Time
	VMMap        []int64 // vm_instance ids; may name ids that do not exist
	// Removed models the removed column, set when CloudStack deletes the cluster: no API lists
	// it any more.
	Removed bool
	// KubernetesVersionID is the uuid of the cluster's kubernetes_supported_version row; empty
	// or naming no row, the answer has no kubernetesversionid.
	KubernetesVersionID string
	// ServiceOfferingID is the uuid of the cluster's service_offering row (service_offering_id);
	// ControlOfferingID, WorkerOfferingID and EtcdOfferingID those of its node types (4.21 on,
	// control_/worker_/etcd_node_service_offering_id), empty for none (offerings.go).
	ServiceOfferingID                                   string
	ControlOfferingID, WorkerOfferingID, EtcdOfferingID string
}

// VM is a vm_instance row. Removed models the removed column: CloudStack sets it when it expunges
// a VM, and from then on no API lists the VM, not even through a cluster's VM map.
type VM struct {
	InternalID  int64
	ID          string
	Name        string
	DisplayName string
	State       string // Running, Stopped, Destroyed, Expunging, ...
	Account     string
	DomainID    string
	Domain      string
	ProjectID   string
	Project     string
	ZoneID      string
	ZoneName    string
	NetworkID   string
	IPAddress   string
	Created     time.Time
	Removed     bool
	// System marks a system VM (a virtual router, a console proxy): a vm_instance row without a
	// user_vm row, which listVirtualMachines does not list.
	System bool
	// OtherNICs are the VM's NICs after its default one, the NIC on NetworkID with IPAddress.
	OtherNICs []NIC
	// Details are user_vm_details rows shown to the API (display=1), e.g. CKS's
	// controlNodeLoginUser.
	Details map[string]string
	// ExtraDHCPOptions are the extra DHCP options of the VM's NIC.
	ExtraDHCPOptions []ExtraDHCPOption
	// ControlNode is the control_node flag of the VM's kubernetes_cluster_vm_map row (4.16 on),
	// which the API does not show; a cluster none of whose VMs has it is rendered into the
	// database with its first ControlNodes rows flagged, as CKS writes them (mariadbtest).
	ControlNode bool
	// EtcdNode and ExternalNode are the etcd_node and external_node flags of the VM's
	// kubernetes_cluster_vm_map row (4.21 on).
	EtcdNode, ExternalNode bool
	// KubernetesNodeVersion is the row's kubernetes_node_version (4.21 on).
	KubernetesNodeVersion string
	// Type is user_vm.user_vm_type: "cksnode" for the VMs CKS deploys (UserVmManager.CKS_NODE,
	// 4.16.0.0 on; BuildCluster sets it), empty for CloudStack's default "UserVM".
	// listVirtualMachines answers it as vmtype from 4.20.0.0.
	Type string
}

// NIC is a nics row of a VM that is not its default NIC. Removed ones are not shown.
type NIC struct {
	NetworkID string
	IPAddress string
	Removed   bool
}

// Network is a networks row: GuestType is Isolated or Shared (a cluster on a shared network has
// no source NAT address and its nodes are reached on their own addresses). A VPC tier has a
// VPCID and its ACL list's ACLID (DefaultAllowACL for default_allow); Routed is a network of a
// routed offering (4.20 on), where CKS creates no rules.
type Network struct {
	ID                 string
	GuestType          string
	VPCID, ACLID       string
	Routed             bool
	Account, ProjectID string
}

// ExtraDHCPOption is a nic_extra_dhcp_options row.
type ExtraDHCPOption struct {
	Code  int
	Name  string
	Value string
}

// PublicIP is a user_ip_address row: a public address acquired for a network.
type PublicIP struct {
	ID        string
	Address   string
	NetworkID string // associated network uuid
	SourceNAT bool
	Account   string
	DomainID  string
	ProjectID string
}

// PortForwardingRule is a firewall_rules row of purpose PortForwarding; CKS creates one per node
// (public port 2222+i to private port 22) on isolated networks.
type PortForwardingRule struct {
	ID               string
	IPAddressID      string
	IPAddress        string
	PublicPort       int
	PrivatePort      int
	VirtualMachineID string // VM uuid
	NetworkID        string
	Account          string
	DomainID         string
	ProjectID        string
}

// Alert is an alert row. Archived alerts are hidden from listAlerts and no longer latch
// generateAlert.
type Alert struct {
	ID          string
	Type        int
	Name        string
	Description string
	ZoneID      string
	PodID       string
	Sent        time.Time
	Archived    bool
}

// Annotation is an annotations row; Removed ones are hidden from listAnnotations.
type Annotation struct {
	ID         string
	EntityType string
	EntityID   string
	Annotation string
	AdminsOnly bool
	Created    time.Time
	Removed    bool
}

// newUUID hands out a well-formed, deterministic uuid so that answers are reproducible between
// runs; the SDK's IsID accepts it.
func (w *World) newUUID() string {
	w.seq++
	return fmt.Sprintf("cafe0000-0000-4000-8000-%012x", w.seq)
}

// AddVM stores a copy of vm and returns the stored row. A zero InternalID gets the next free id
// and an empty ID a fresh uuid, so most tests only name the fields they care about.
func (w *World) AddVM(vm VM) *VM {
	if w.VMs == nil {
		w.VMs = make(map[int64]*VM)
	}
	if vm.InternalID == 0 {
		for id := range w.VMs {
			vm.InternalID = max(vm.InternalID, id)
		}
		vm.InternalID++
	}
	if vm.ID == "" {
		vm.ID = w.newUUID()
	}
	if vm.DisplayName == "" {
		vm.DisplayName = vm.Name
	}
	stored := vm
	w.VMs[vm.InternalID] = &stored
	return &stored
}

// AddCluster appends a copy of c and returns the stored row, filling InternalID and ID like AddVM
// and ClusterType with CloudManaged, the value of every cluster CKS deploys itself.
func (w *World) AddCluster(c Cluster) *Cluster {
	if c.InternalID == 0 {
		for _, o := range w.Clusters {
			if o != nil {
				c.InternalID = max(c.InternalID, o.InternalID)
			}
		}
		c.InternalID++
	}
	if c.ID == "" {
		c.ID = w.newUUID()
	}
	if c.ClusterType == "" {
		c.ClusterType = "CloudManaged"
	}
	stored := c
	w.Clusters = append(w.Clusters, &stored)
	sort.SliceStable(w.Clusters, func(i, j int) bool { return clusterID(w.Clusters[i]) < clusterID(w.Clusters[j]) })
	return &stored
}

func clusterID(c *Cluster) int64 {
	if c == nil {
		return 0
	}
	return c.InternalID
}

// AddPortForwardingRule appends a copy of r with a fresh ID when it has none.
func (w *World) AddPortForwardingRule(r PortForwardingRule) *PortForwardingRule {
	if r.ID == "" {
		r.ID = w.newUUID()
	}
	stored := r
	w.PortForwardingRules = append(w.PortForwardingRules, &stored)
	return &stored
}

// ClusterByName returns the first cluster with that name, or nil; names are not unique across
// accounts in CloudStack, so tests that reuse a name should keep the pointer AddCluster returned.
func (w *World) ClusterByName(name string) *Cluster {
	for _, c := range w.Clusters {
		if c != nil && c.Name == name {
			return c
		}
	}
	return nil
}

// VMByName returns the VM with that name and the lowest internal id, removed or not, or nil.
func (w *World) VMByName(name string) *VM {
	var found *VM
	for _, vm := range w.VMs {
		if vm != nil && vm.Name == name && (found == nil || vm.InternalID < found.InternalID) {
			found = vm
		}
	}
	return found
}

// vmByUUID returns the VM with that uuid, removed or not, or nil.
func (w *World) vmByUUID(id string) *VM {
	for _, vm := range w.VMs {
		if vm != nil && vm.ID == id {
			return vm
		}
	}
	return nil
}

// sortedVMs returns the VMs in internal id order, the order CloudStack lists them in, leaving
// out nil entries a test may have put in the map.
func (w *World) sortedVMs() []*VM {
	if w.sortedValid && len(w.sorted) == len(w.VMs) {
		return w.sorted
	}
	w.sorted, w.sortedValid = w.sortVMs(), true
	return w.sorted
}

// sortVMs returns the VMs in id order; callers only read the slice.
func (w *World) sortVMs() []*VM {
	// Every list call sorts every VM: sort (id, row) pairs with the generic sort, which does not
	// chase a pointer per comparison, so that the tens of thousands of VMs of the scale
	// benchmark cost a few milliseconds per call rather than tens.
	type entry struct {
		id int64
		vm *VM
	}
	entries := make([]entry, 0, len(w.VMs))
	for _, vm := range w.VMs {
		if vm != nil {
			entries = append(entries, entry{vm.InternalID, vm})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
	vms := make([]*VM, len(entries))
	for i, e := range entries {
		vms[i] = e.vm
	}
	return vms
}
