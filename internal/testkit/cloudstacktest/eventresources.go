package cloudstacktest

import (
	"slices"
	"strings"
)

// ruleResources are the resource types of events on a network rule: firewall, port-forwarding
// and load-balancer rules are FirewallRule, ACL items NetworkAclItem (EventTypes
// .entityEventDetails at 4.20.0.0).
var ruleResources = map[string]bool{"FirewallRule": true, "NetworkAclItem": true}

// ruleExists reports whether a rule of the world has the uuid id. A deleted rule's row is gone
// (firewall_rules has no removed column: FirewallManagerImpl.revokeRule's _firewallDao.remove is
// an expunge, GenericDaoBase.remove at 4.20.0.0; RemoveRule models it).
func (w *World) ruleExists(id string) bool {
	return hasRule(w.PortForwardingRules, id, func(r *PortForwardingRule) string { return r.ID }) ||
		hasRule(w.FirewallRules, id, func(r *FirewallRule) string { return r.ID }) ||
		hasRule(w.LoadBalancerRules, id, func(r *LoadBalancerRule) string { return r.ID }) ||
		hasRule(w.NetworkACLItems, id, func(r *NetworkACLItem) string { return r.ID })
}

// hasRule reports whether one of rows has the uuid id.
func hasRule[T any](rows []*T, id string, uuid func(*T) string) bool {
	return slices.ContainsFunc(rows, func(r *T) bool { return r != nil && strings.EqualFold(uuid(r), id) })
}

// eventResource returns the resourceid listEvents answers for an event: EventJoinDaoImpl
// .newEventResponse looks the resource up including removed rows (4.17.0.0, 4.21.0.0) and names
// it only when a row is found, so a deleted rule's events name none.
func (w *World) eventResource(ev *Event) string {
	if ruleResources[ev.ResourceType] && !w.ruleExists(ev.ResourceID) {
		return ""
	}
	return ev.ResourceID
}

// knownResource reports whether listEvents accepts resourceid id of type typ:
// QueryManagerImpl.searchForEventsInternal answers "Invalid resourceid" (431) when
// findByUuidIncludingRemoved finds no row (4.20.0.0), as for a deleted rule. Only the rules are
// checked: the fake's other resources are never deleted (a removed VM or cluster keeps its row).
func (w *World) knownResource(typ, id string) bool {
	return !ruleResources[typ] || w.ruleExists(id)
}
