package collector

import (
	"testing"
	"time"
)

// TestRuleCauses: a network_rule_missing is wanted only for rules the last snapshot held that are
// gone, and only with an event that started the check and named one of them; that event explains
// it when it is a Completed deletion on a rule type under the owner, naming one of the gone rules
// or, its row gone, none; a failed deletion, another account's, an event on another rule or on a
// VM, and an event not asked for as a trigger that names no resource do not.
func TestRuleCauses(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	c := Cluster{ID: "k1", Account: "acme", DomainID: "d1"}
	prevRules := &NetworkRules{Type: NetworkIsolated,
		Forwarding: []ForwardingRule{{ID: "pf-w1", VMID: "w1", PrivatePort: 22}, {ID: "pf-w2", VMID: "w2", PrivatePort: 22}},
		Firewall:   []FirewallRule{{ID: "fw-api", StartPort: 6443, EndPort: 6443}}}
	cur := c
	cur.Rules = &NetworkRules{Type: NetworkIsolated, Forwarding: []ForwardingRule{{ID: "pf-w2", VMID: "w2", PrivatePort: 22}}}
	prev := []ClusterStatus{{Cluster: Cluster{ID: "k1", Rules: prevRules}}}
	s := ClusterStatus{Cluster: cur, Checked: true}
	s.Set(SideNetwork, []Finding{
		{Kind: KindNetworkRuleMissing, VMID: "w1", FirstSeen: now},
		{Kind: KindNetworkRuleMissing, FirstSeen: now}, // the firewall rule of 6443
	})
	triggers := func(id string, types []string) []string {
		if id == "pf-w1" {
			return []string{"ev-1"}
		}
		return nil
	}
	wants := WantCauses([]ClusterStatus{s}, prev, now, 10, triggers)
	if len(wants) != 1 || wants[0].ResourceID != "pf-w1" || len(wants[0].Triggers) != 1 || wants[0].On != CauseOnRule {
		t.Fatalf("wants %+v: want the node's rule only, with its trigger (the 6443 rule has none)", wants)
	}
	if w := WantCauses([]ClusterStatus{s}, nil, now, 10, triggers); len(w) != 0 {
		t.Errorf("without the last snapshot's rules: wants %+v", w)
	}
	w := wants[0]
	ok := CauseEvent{ID: "ev-1", Type: "NET.RULEDELETE", State: "Completed", Level: "INFO", Account: "acme", DomainID: "d1",
		ResourceType: "FirewallRule", Created: now.Add(-time.Minute), Triggered: true}
	for _, tc := range []struct {
		name string
		edit func(*CauseEvent)
		want bool
	}{
		{"the delivered deletion, its rule's row gone", func(*CauseEvent) {}, true},
		{"naming the rule", func(e *CauseEvent) { e.ResourceID, e.Triggered = "PF-W1", false }, true},
		{"an ACL item's deletion", func(e *CauseEvent) { e.Type, e.ResourceType = "NETWORK.ACL.ITEM.DELETE", "NetworkAclItem" }, true},
		{"not a trigger, naming no resource", func(e *CauseEvent) { e.Triggered = false }, false},
		{"another rule", func(e *CauseEvent) { e.ResourceID = "pf-w2" }, false},
		{"failed", func(e *CauseEvent) { e.Level = "ERROR" }, false},
		{"another account", func(e *CauseEvent) { e.Account = "mallory" }, false},
		{"on a VM", func(e *CauseEvent) { e.ResourceType = "VirtualMachine" }, false},
		{"scheduled", func(e *CauseEvent) { e.State = "Scheduled" }, false},
		{"a rule's creation", func(e *CauseEvent) { e.Type = "NET.RULEADD" }, false},
	} {
		e := ok
		tc.edit(&e)
		if got := w.Explains(e); got != tc.want {
			t.Errorf("%s: explains %v, want %v", tc.name, got, tc.want)
		}
	}
}
