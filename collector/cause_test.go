package collector

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestCauseExplains: an event explains a new finding only through its resource, of one of the
// kind's types, carried out, within the look-back, and recorded under the cluster's owner or the
// operator's built-in admin accounts; never another tenant's, whatever its text says.
func TestCauseExplains(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	vm := "5b4c7f0e-9a43-4c1e-8d2b-1f6a2e9c3d71"
	acme := Cluster{ID: "c1", Account: "acme", DomainID: "d1"}
	project := Cluster{ID: "c2", ProjectID: "p1", DomainID: "d1"}
	want := func(c Cluster) CauseWant {
		return CauseWant{Cluster: c, ResourceID: vm, On: CauseOnVM, Types: []string{"VM.EXPUNGE", "VM.DESTROY"}, Since: now.Add(-CauseLookBack)}
	}
	owner := CauseEvent{ID: "e1", Type: "VM.EXPUNGE", State: "Completed", Account: "acme", DomainID: "D1", Domain: "acme-domain",
		ResourceID: strings.ToUpper(vm), ResourceType: "VirtualMachine", Created: now.Add(-time.Minute)}
	with := func(change func(*CauseEvent)) CauseEvent {
		e := owner
		change(&e)
		return e
	}
	tests := []struct {
		name string
		w    CauseWant
		e    CauseEvent
		want bool
	}{
		{"the owner's completed expunge of the VM", want(acme), owner, true},
		{"another tenant's event on the same VM uuid", want(acme), with(func(e *CauseEvent) { e.Account = "mallory" }), false},
		{"the same account name in another domain", want(acme), with(func(e *CauseEvent) { e.DomainID = "d2" }), false},
		{"a project's event for an account's cluster", want(acme), with(func(e *CauseEvent) { e.ProjectID = "p1" }), false},
		{"the root admin", want(acme), with(func(e *CauseEvent) { e.Account, e.DomainID, e.Domain = "admin", "d0", "ROOT" }), true},
		{"CloudStack's system account", want(acme), with(func(e *CauseEvent) { e.Account, e.DomainID, e.Domain = "system", "d0", "ROOT" }), true},
		{"a tenant account in the ROOT domain", want(acme), with(func(e *CauseEvent) { e.Account, e.DomainID, e.Domain = "mallory", "d0", "ROOT" }), false},
		{"an admin named so in a project", want(acme), with(func(e *CauseEvent) { e.Account, e.Domain, e.ProjectID = "admin", "ROOT", "p9" }), false},
		{"the project's own event", want(project), with(func(e *CauseEvent) { e.Account, e.ProjectID = "PrjAcct-p1", "P1" }), true},
		{"another project's event", want(project), with(func(e *CauseEvent) { e.ProjectID = "p2" }), false},
		{"an event of another resource naming the VM in its text", want(acme), with(func(e *CauseEvent) { e.ResourceID, e.Description = "other", "Expunging Vm. Vm Id: "+vm }), false},
		{"another resource type", want(acme), with(func(e *CauseEvent) { e.ResourceType = "Volume" }), false},
		{"no resource (a release before 4.17)", want(acme), with(func(e *CauseEvent) { e.ResourceID, e.ResourceType = "", "" }), false},
		{"a type that does not explain the kind", want(acme), with(func(e *CauseEvent) { e.Type = "VM.START" }), false},
		{"scheduled, before the access check", want(acme), with(func(e *CauseEvent) { e.State = "Scheduled" }), false},
		{"started, not carried out", want(acme), with(func(e *CauseEvent) { e.State = "Started" }), false},
		{"older than the look-back", want(acme), with(func(e *CauseEvent) { e.Created = now.Add(-CauseLookBack - time.Second) }), false},
		{"no time", want(acme), with(func(e *CauseEvent) { e.Created = time.Time{} }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.w.Explains(tt.e); got != tt.want {
				t.Errorf("Explains = %t, want %t", got, tt.want)
			}
		})
	}
}

// TestCauseTextIsSafe: the description and the names of an event are the caller's text: a cause
// keeps one printable, bounded line of each.
func TestCauseTextIsSafe(t *testing.T) {
	e := CauseEvent{ID: "e1", Type: "VM.STOP", Description: "Stopping\x1b[2J\nVM.EXPUNGE by admin\u202e " + strings.Repeat("x", 1<<20),
		Username: "bob\r\nLast change: VM.EXPUNGE", Account: strings.Repeat("a", 1000), Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))}
	c := e.Cause()
	for name, s := range map[string]string{"description": c.Description, "username": c.Username, "account": c.Account} {
		if strings.ContainsAny(s, "\x1b\r\n\u202e") {
			t.Errorf("%s holds a control or format character: %q", name, s)
		}
	}
	if n := utf8.RuneCountInString(c.Description); n > MaxCauseDescription+3 {
		t.Errorf("description of %d characters, want at most %d", n, MaxCauseDescription+3)
	}
	if n := utf8.RuneCountInString(c.Account); n > maxCauseName+3 {
		t.Errorf("account of %d characters", n)
	}
	if c.Created.Location() != time.UTC {
		t.Errorf("created %s, want UTC", c.Created)
	}
}

// TestWantCauses: only new findings (first seen now) of kinds an event can explain are looked up,
// at most the limit, one of each cluster in turn; a finding known before keeps its cause, from
// the last snapshot or from the notifier's memory, and is never looked up again.
func TestWantCauses(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	before := now.Add(-time.Hour)
	expunged := func(vm string, seen time.Time) Finding {
		return Finding{Kind: KindMappedVMExpunged, VMID: vm, VMName: vm, FirstSeen: seen}
	}
	greedy := ClusterStatus{Cluster: Cluster{ID: "greedy"}, Checked: true}
	for i := range 30 {
		greedy.Add(expunged("g"+string(rune('a'+i)), now))
	}
	other := ClusterStatus{Cluster: Cluster{ID: "other"}, Checked: true}
	other.Add(expunged("o1", now), expunged("old", before), Finding{Kind: KindVMMapIncomplete, FirstSeen: now},
		Finding{Kind: KindNodeWithoutVM, VMName: "n1", FirstSeen: now})
	statuses := []ClusterStatus{greedy, other}
	shared := other.On(SideVM)

	wants := WantCauses(statuses, nil, now, 5, func(id string, types []string) []string {
		if id == "o1" && slices.Contains(types, "VM.EXPUNGE") {
			return []string{"ev-1"}
		}
		return nil
	})
	var got []string
	for _, w := range wants {
		got = append(got, w.Cluster.ID+"/"+w.ResourceID+"/"+string(w.On))
	}
	want := []string{"greedy/ga/VirtualMachine", "other/o1/VirtualMachine", "greedy/gb/VirtualMachine", "other/other/KubernetesCluster", "greedy/gc/VirtualMachine"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("wanted %v, want %v", got, want)
	}
	if len(wants[1].Triggers) != 1 || wants[1].Triggers[0] != "ev-1" || len(wants[0].Triggers) != 0 {
		t.Errorf("triggers: %v and %v", wants[0].Triggers, wants[1].Triggers)
	}
	if !wants[0].Since.Equal(now.Add(-CauseLookBack)) {
		t.Errorf("since %s", wants[0].Since)
	}

	cause := Cause{EventID: "e-o1", Type: "VM.EXPUNGE", Created: before}
	SetCauses(statuses, wants[:2], []Cause{{}, cause})
	if statuses[1].On(SideVM)[0].Cause != cause || !statuses[0].On(SideVM)[0].Cause.IsZero() {
		t.Fatalf("SetCauses: %+v, %+v", statuses[1].On(SideVM)[0].Cause, statuses[0].On(SideVM)[0].Cause)
	}
	if !shared[0].Cause.IsZero() {
		t.Error("SetCauses changed the findings a copy of the status shares")
	}
	if again := WantCauses(statuses, nil, now, 100, nil); len(again) != 31 { // 30 + the map's; o1 has its cause
		t.Errorf("%d wanted after o1 got its cause, want 31", len(again))
	}

	// The next cycle: o1 carries its cause from the last snapshot, old its own from memory.
	later := now.Add(5 * time.Minute)
	next := []ClusterStatus{{Cluster: Cluster{ID: "other"}, Checked: true}}
	next[0].Add(expunged("o1", now), expunged("old", before))
	remembered := Cause{EventID: "e-old", Type: "VM.DESTROY"}
	asked := 0
	CarryCauses(next, statuses, func(clusterID string, side Side, key string) (Cause, bool) {
		asked++
		if clusterID == "other" && side == SideVM && key == expunged("old", before).Key() {
			return remembered, true
		}
		return Cause{}, false
	})
	if vm := next[0].On(SideVM); vm[0].Cause != cause || vm[1].Cause != remembered || asked != 1 {
		t.Errorf("carried %+v and %+v, memory asked %d times", vm[0].Cause, vm[1].Cause, asked)
	}
	if w := WantCauses(next, nil, later, 100, nil); len(w) != 0 {
		t.Errorf("findings that are not new looked up: %+v", w)
	}
}

// TestEveryKindsCausesAreDeclared: the events of each kind name a resource events are recorded
// against, and only kinds whose findings name it (a VM kind's finding has a VM).
func TestEveryKindsCausesAreDeclared(t *testing.T) {
	for _, d := range Declarations {
		if len(d.Causes.Types) == 0 {
			continue
		}
		switch d.Causes.On {
		case CauseOnCluster:
		case CauseOnRule:
			if d.Side != SideNetwork {
				t.Errorf("%s: events on a rule, but it is no kind of the network side", d.Kind)
			}
		case CauseOnVM:
			if d.Subject != SubjectVM {
				t.Errorf("%s: events on the VM, but its findings name no VM (%s)", d.Kind, d.Subject)
			}
		default:
			t.Errorf("%s: events on %q", d.Kind, d.Causes.On)
		}
		for _, typ := range d.Causes.Types {
			if strings.ToUpper(typ) != typ || !strings.Contains(typ, ".") {
				t.Errorf("%s: %q is not a CloudStack event type", d.Kind, typ)
			}
		}
	}
}
