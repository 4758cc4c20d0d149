package collector

import (
	"slices"
	"strings"
)

// CauseOnRule: a network rule of the finding's cluster, one that the last snapshot held and the
// current one does not. CloudStack records the deletion of a firewall, port-forwarding or
// load-balancer rule against the rule as a FirewallRule (EventTypes.entityEventDetails maps
// FIREWALL.CLOSE, NET.RULEDELETE, LB.DELETE and LB.REMOVE.FROM.RULE to FirewallRule.class), and
// of an ACL item as a NetworkAclItem (NETWORK.ACL.ITEM.DELETE to NetworkACLItem.class), at
// 4.20.0.0 (api/src/main/java/com/cloud/event/EventTypes.java).
//
// A deleted rule's row is gone: firewall_rules has no removed column, so the delete is a real
// one (FirewallManagerImpl.revokeRule calls _firewallDao.remove, which GenericDaoBase.remove
// turns into an expunge, 4.20.0.0). listEvents then refuses the rule's uuid as resourceid
// ("Invalid resourceid": QueryManagerImpl.searchForEventsInternal finds no row,
// findByUuidIncludingRemoved) and answers its events without a resourceid
// (EventJoinDaoImpl.newEventResponse). So the event is found only as the event that started a
// re-check: CloudStack's signed webhook delivery names the rule (its entityuuid and
// "FirewallRule: <uuid>", taken from the call's context, ActionEventUtils.publishOnEventBus), and
// listEvents is asked for the event by id (CauseEvent.Triggered).
const CauseOnRule CauseResource = "FirewallRule"

// ruleEventResources are the resource types events on a network rule are recorded against.
var ruleEventResources = []string{string(CauseOnRule), "NetworkAclItem"}

// ruleDeletions are the events that remove a rule CKS created (getEventType of
// DeleteFirewallRuleCmd, DeletePortForwardingRuleCmd, DeleteLoadBalancerRuleCmd and
// DeleteNetworkACLCmd at 4.20.0.0).
var ruleDeletions = []string{"NET.RULEDELETE", "FIREWALL.CLOSE", "LB.DELETE", "NETWORK.ACL.ITEM.DELETE"}

// goneRules returns the uuids of the rules prev held that cur does not and that f is about: for a
// node's finding (f.VMID), its port-forwarding rules to port 22; for the cluster's, the other
// rules that can be CKS's (firewall rules, the API port's port-forwarding and load-balancer rules,
// ACL items). Nil when either was not read.
func goneRules(prev, cur *NetworkRules, f Finding) []string {
	if !prev.Read() || !cur.Read() {
		return nil
	}
	have := make(map[string]bool)
	for _, id := range ruleIDs(cur) {
		have[strings.ToLower(id)] = true
	}
	var out []string
	gone := func(id string) {
		if id != "" && !have[strings.ToLower(id)] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, p := range prev.Forwarding {
		switch {
		case f.VMID != "" && p.PrivatePort == sshPort && strings.EqualFold(p.VMID, f.VMID):
			gone(p.ID)
		case f.VMID == "" && p.PublicPort == apiPort && p.PrivatePort == apiPort:
			gone(p.ID)
		}
	}
	if f.VMID != "" {
		return out
	}
	for _, r := range prev.Firewall {
		gone(r.ID)
	}
	for _, b := range prev.Balancing {
		if b.PublicPort == apiPort {
			gone(b.ID)
		}
	}
	for _, a := range prev.ACL {
		gone(a.ID)
	}
	return out
}

// ruleIDs returns the uuids of every rule of r.
func ruleIDs(r *NetworkRules) []string {
	var out []string
	for _, p := range r.Forwarding {
		out = append(out, p.ID)
	}
	for _, f := range r.Firewall {
		out = append(out, f.ID)
	}
	for _, b := range r.Balancing {
		out = append(out, b.ID)
	}
	for _, a := range r.ACL {
		out = append(out, a.ID)
	}
	return out
}

// explainsRule reports whether e's resource is one of the rules the wanted finding is about: an
// event on a rule type, naming one of them, or naming none (the rule's row is gone) when it is an
// event that started the check and whose delivery named one of them (Triggered). A failed
// deletion (level ERROR) removed nothing.
func (w CauseWant) explainsRule(e CauseEvent) bool {
	switch {
	case !slices.Contains(ruleEventResources, e.ResourceType) || e.Level == "ERROR":
		return false
	case e.ResourceID == "":
		return e.Triggered
	}
	return slices.ContainsFunc(w.RuleIDs, func(id string) bool { return strings.EqualFold(id, e.ResourceID) })
}
