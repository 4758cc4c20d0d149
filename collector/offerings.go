package collector

// The service offerings CloudStack records for a cluster's nodes: CKS's next scale of the cluster
// looks its offering up among those that are not removed.

// The node types of a cluster that each have a service offering from 4.21 on
// (kubernetes_cluster.control_/worker_/etcd_node_service_offering_id, the answer's
// controlofferingid, workerofferingid and etcdofferingid); before 4.21 every node has the
// cluster's one offering (service_offering_id, serviceofferingid).
const (
	NodeControl = "control"
	NodeWorker  = "worker"
	NodeEtcd    = "etcd"
)

// NodeOffering is the service offering CloudStack records for one node type of a cluster.
type NodeOffering struct {
	NodeType string // NodeControl, NodeWorker or NodeEtcd
	ID       string // the offering's uuid; empty: none recorded, nothing to compare
}

// Offering is a service offering as the source read it.
type Offering struct {
	ID   string // uuid
	Name string
	// Inactive: its state is Inactive (4.17 on), as an operator retires an offering before
	// deleting it.
	Inactive bool
	// Removed: deleteServiceOffering set its removed column. Only the database shows such
	// offerings; the API lists none, and an offering it does not list is taken as removed.
	Removed bool
}

// Offerings are the service offerings one cycle read, by uuid. Read is false when the source
// could not read them (a failed list, a refused command): then no cluster's offerings are
// compared and the cluster side keeps its findings.
type Offerings struct {
	Read bool
	ByID map[string]Offering
}

// NodeOfferings returns the offering of each node type of a cluster: the node type's own (byType,
// 4.21 on) where CloudStack records one, else the cluster's (def), as CKS falls back to it
// (KubernetesClusterManagerImpl.getExistingServiceOfferingIdForNodeType at 4.21.0.0). The etcd
// nodes count only when the cluster has some; a node type with no offering at all is left out.
func NodeOfferings(def string, byType map[string]string, etcdNodes int) []NodeOffering {
	types := []string{NodeControl, NodeWorker}
	if etcdNodes > 0 {
		types = append(types, NodeEtcd)
	}
	var out []NodeOffering
	for _, t := range types {
		id := byType[t]
		if id == "" {
			id = def
		}
		if id != "" {
			out = append(out, NodeOffering{NodeType: t, ID: id})
		}
	}
	return out
}
