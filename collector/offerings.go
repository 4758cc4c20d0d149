package collector

// The service offerings CloudStack records for a cluster's nodes, and the finding of those that
// are removed or inactive: CKS's next scale of the cluster looks its offering up among those that
// are not removed.

import (
	"fmt"
	"strings"
)

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

// compareOfferings finds the cluster's node types whose service offering is removed or
// inactive: one finding per cluster (its vm_id and vm_name are empty), whose message names each
// such offering and its node types. Offerings are matched by uuid only, never by name: a
// tenant's own offering named like another's changes nothing. Offerings that were not read make
// no finding.
func compareOfferings(c Cluster, offerings Offerings) []Finding {
	if !offerings.Read {
		return nil
	}
	var parts []string
	for _, g := range groupByOffering(c.Offerings) {
		o, listed := offerings.ByID[g.id]
		if listed && !o.Removed && !o.Inactive {
			continue
		}
		parts = append(parts, offeringPart(g, o, listed))
	}
	if len(parts) == 0 {
		return nil
	}
	return []Finding{{Kind: KindOfferingMissing, Message: fmt.Sprintf("Kubernetes cluster %s: %s", c.Name, strings.Join(parts, "; "))}}
}

// offeringGroup is one offering and the node types that have it, in the order met.
type offeringGroup struct {
	id    string
	types []string
}

func groupByOffering(nodes []NodeOffering) []offeringGroup {
	var out []offeringGroup
	for _, n := range nodes {
		if n.ID == "" {
			continue
		}
		i := 0
		for i < len(out) && out[i].id != n.ID {
			i++
		}
		if i == len(out) {
			out = append(out, offeringGroup{id: n.ID})
		}
		out[i].types = append(out[i].types, n.NodeType)
	}
	return out
}

// offeringPart says what is wrong with one offering and what of CKS fails because of it.
func offeringPart(g offeringGroup, o Offering, listed bool) string {
	name := g.id
	if listed && o.Name != "" {
		name = o.Name + " (" + g.id + ")"
	}
	of := "the service offering " + name + " of its " + strings.Join(g.types, " and ") + " nodes"
	if listed && !o.Removed {
		return of + " is inactive in CloudStack: CloudStack refuses it for new and rescaled VMs, and it is the step before it is removed, " +
			"which makes CKS's next scale of the cluster fail; re-activate it or move the cluster to an active offering"
	}
	return of + " is removed in CloudStack: CKS's next scale of the cluster fails (it finds no service offering of the cluster) " +
		"and so does an upgrade that checks it (\"Invalid service offering associated with Kubernetes cluster\")"
}
