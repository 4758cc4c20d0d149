package exporter

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// watched is a cluster an event can re-check, with the tenant whose share of re-checks it spends
// (collector.Cluster.Owner, the owner the alert cap and the node listings' turns count).
type watched struct {
	clusterID string
	tenant    string
}

// eventIndex finds the clusters an event concerns, by resource uuid only: the cluster's own, the
// VMs of its map, the VMs its findings name (a VM named as one of its nodes, a VM that is no
// node) and the rules of its network that CKS's rules are among (a tenant deleting one is the
// event of network_rule_missing). Names and descriptions, which tenants write, are never looked
// at.
type eventIndex struct {
	snapshot *collector.Snapshot // the snapshot it was built from
	byID     map[string][]watched
}

// newEventIndex indexes the clusters of s.
func newEventIndex(s *collector.Snapshot) *eventIndex {
	x := &eventIndex{snapshot: s, byID: make(map[string][]watched, len(s.Clusters)*4)}
	for _, cs := range s.Clusters {
		w := watched{clusterID: cs.Cluster.ID, tenant: cs.Cluster.Owner()}
		x.add(cs.Cluster.ID, w)
		for _, m := range cs.Cluster.Mapped {
			x.add(m.ID, w)
		}
		for _, f := range cs.Findings() {
			x.add(f.VMID, w)
		}
		for _, id := range ruleIDs(cs.Cluster.Rules) {
			x.add(id, w)
		}
	}
	return x
}

// maxRuleIDs bounds the rules of one cluster's network the index holds: a tenant may put any
// number of rules on its network, and only CKS's few matter. Past it, a rule's event waits for
// the next sweep.
const maxRuleIDs = 64

// ruleIDs returns the uuids of the rules of a network that can be CKS's (collector.CompareRules):
// port-forwarding rules to port 22 or 6443, TCP firewall rules, load-balancer rules of 6443 and
// the ACL items, at most maxRuleIDs.
func ruleIDs(r *collector.NetworkRules) []string {
	if !r.Read() {
		return nil
	}
	var out []string
	keep := func(id string) {
		if len(out) < maxRuleIDs {
			out = append(out, id)
		}
	}
	for _, p := range r.Forwarding {
		if p.PrivatePort == 22 || p.PrivatePort == 6443 {
			keep(p.ID)
		}
	}
	for _, f := range r.Firewall {
		keep(f.ID)
	}
	for _, b := range r.Balancing {
		if b.PublicPort == 6443 {
			keep(b.ID)
		}
	}
	for _, a := range r.ACL {
		keep(a.ID)
	}
	return out
}

func (x *eventIndex) add(id string, w watched) {
	if !events.IsUUID(id) {
		return // empty, or the numeric id of a map row whose VM does not exist
	}
	for _, have := range x.byID[id] {
		if have.clusterID == w.clusterID {
			return
		}
	}
	x.byID[id] = append(x.byID[id], w)
}

// clusters returns the clusters e concerns, each once: through its entity or any entity of its
// call.
func (x *eventIndex) clusters(e events.Event) []watched {
	var out []watched
	seen := make(map[string]bool)
	look := func(id string) {
		for _, w := range x.byID[id] {
			if !seen[w.clusterID] {
				seen[w.clusterID] = true
				out = append(out, w)
			}
		}
	}
	look(e.EntityID)
	for _, id := range e.Resources {
		look(id)
	}
	return out
}
