// Package collector compares CloudStack's view of CKS clusters with Kubernetes and exposes the result.
package collector

import "time"

// Inventory is what one cycle read from CloudStack (or its database): every cluster and every VM
// the credentials can see. Sources fill it; the engine never asks where it came from.
type Inventory struct {
	Clusters []Cluster
	// VMs holds every VM that is not expunged, in every state, of every account and project.
	VMs []VM
	// Offerings are the service offerings the source read (offerings.go), matched by uuid with
	// the clusters' Offerings.
	Offerings Offerings
}

// Cluster is one CKS cluster with the part of its VM map its source can see.
type Cluster struct {
	ID          string // uuid
	Name        string
	State       string // Running, Alert, Scaling, ...
	ClusterType string // CloudManaged or ExternalManaged
	ZoneID      string
	ZoneName    string
	Account     string
	DomainID    string
	Domain      string
	ProjectID   string
	Project     string
	NetworkID   string
	Created     time.Time
	// KubernetesVersion is the semantic version ("1.24.0") of the cluster's Kubernetes version in
	// CloudStack; empty when the source does not know it.
	KubernetesVersion string

	ControlNodes int
	WorkerNodes  int // the cluster's size
	EtcdNodes    int

	// Mapped is the VM map as the source sees it. Through the API, rows whose VM is expunged or
	// does not exist are silently missing (see MapRowsVisible).
	Mapped []MappedVM
	// MapRowsVisible is true when the source reads the map rows themselves (the database), so
	// that dangling rows appear in Mapped and no count gap has to be inferred.
	MapRowsVisible bool

	// SSH is where kubectl can be reached; an empty Host means it could not be discovered.
	SSH SSHTarget

	// Offerings are the service offerings CloudStack records for the cluster's node types
	// (NodeOfferings); empty where the source shows none.
	Offerings []NodeOffering

	// OperationStarted is when CloudStack records that the operation of the cluster's current
	// state started (its event, see OperationEvent), for a cluster in an operation state; zero
	// where the source or the release shows none.
	OperationStarted time.Time

	// Rules are the rules of the cluster's network as its source read them (networkrules.go);
	// nil: not read.
	Rules *NetworkRules
}

// MappedVM is one row of a cluster's VM map and what the source knows of its VM.
type MappedVM struct {
	ID         string // uuid; empty when the VM does not exist
	InternalID int64  // vm_instance.id when the source knows it (database), else 0
	Name       string
	State      string
	Created    time.Time
	Removed    bool // expunged: vm_instance.removed is set
	// Unmanaged: the VM was removed by unmanageVirtualMachine, not expunged: it still runs on its
	// hypervisor outside CloudStack, told by its VM.UNMANAGE event. The database source reads it
	// beside the map rows; the API source, which lists no removed VM, names such a VM (Removed
	// too) only when it saw it in the map before and found the event by the VM as its resource.
	Unmanaged bool
	Missing   bool // the row names a VM id that does not exist
	Etcd      bool // an etcd node, never expected among the Kubernetes nodes
	External  bool // added with addNodesToKubernetesCluster, arbitrary name
	// KubernetesVersion is the node's own Kubernetes version in CloudStack (4.21 on: the map
	// row's kubernetes_node_version), which may differ from the cluster's for a node excluded
	// from upgrades; empty when the release or source does not say.
	KubernetesVersion string
}

// VM is a virtual machine as listVirtualMachines shows it.
type VM struct {
	ID        string
	Name      string
	State     string
	Account   string
	DomainID  string
	ProjectID string
	Created   time.Time
	// CKSNode: CloudStack records the VM as one CKS deployed (user_vm.user_vm_type = cksnode,
	// set by KubernetesClusterStartWorker and KubernetesClusterResourceModifierActionWorker
	// from 4.16.0.0; listVirtualMachines answers it as vmtype from 4.20.0.0, UserVmResponse).
	CKSNode bool
}

// SSHTarget is the address of a cluster's first control node for SSH.
type SSHTarget struct {
	Host string
	Port int
	// User is the cluster's own login user, CKS's controlNodeLoginUser detail of the control VM
	// ("core" for clusters created up to 4.16.0); empty means the configured ssh.user.
	User string
}

// CloudManaged is the type of every cluster CKS deploys itself; releases before 4.19 have no
// cluster type and only such clusters.
const CloudManaged = "CloudManaged"

// ClusterTypeOrDefault returns t, or CloudManaged where the release names no type, so that both
// sources give the same cluster_type label.
func ClusterTypeOrDefault(t string) string {
	if t == "" {
		return CloudManaged
	}
	return t
}

// Finding is one piece of drift in one cluster.
type Finding struct {
	Kind   Kind   `json:"kind"`
	VMID   string `json:"vm_id"`   // uuid, or the map's numeric id for mapped_vm_missing; empty for nodes
	VMName string `json:"vm_name"` // VM name, or the node name for node_without_vm
	// Message says what was found, in words; it is made where the finding is made (drift.go,
	// version.go, stuck.go).
	Message string `json:"message"`
	// InternalID is vm_instance.id when the source knows it.
	InternalID int64     `json:"internal_id,omitempty"`
	FirstSeen  time.Time `json:"first_seen"`
	// Cause is the CloudStack event that explains the finding, where one was found when the
	// finding was new (cause.go).
	Cause Cause `json:"cause,omitzero"`
}

// Key identifies a finding across cycles: the same drift keeps the same key.
func (f Finding) Key() string {
	switch {
	case f.VMID != "":
		return string(f.Kind) + ":" + f.VMID
	case f.VMName != "":
		return string(f.Kind) + ":" + f.VMName
	default:
		return string(f.Kind)
	}
}
