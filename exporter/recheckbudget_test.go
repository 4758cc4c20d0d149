package exporter

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// TestRecheckBudgetIsSharedByTenant: a tenant alone gets half the budget, the other half kept
// for tenants that have not asked yet; a newcomer is granted at once, and the first gets nothing
// more until it is back under the smaller share; the cloud never gets more than the budget a
// minute.
func TestRecheckBudgetIsSharedByTenant(t *testing.T) {
	start := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	b := newRecheckBudget(12)
	granted := func(tenant string, at time.Time) bool { return b.take(tenant, at) }
	flood := 0
	for i := range 12 {
		if granted("flood", start.Add(time.Duration(i)*time.Second)) {
			flood++
		}
	}
	if flood != 6 {
		t.Fatalf("the lone tenant was granted %d of its 12 re-checks, want half the budget, 6", flood)
	}
	// Two newcomers, one after the other, each granted at once and up to its share.
	for _, tenant := range []string{"quiet", "late"} {
		if !granted(tenant, start.Add(13*time.Second)) {
			t.Fatalf("%s was refused its first re-check after the flood", tenant)
		}
	}
	if granted("flood", start.Add(14*time.Second)) {
		t.Error("the flood was granted more while over its share")
	}
	for range 10 {
		granted("quiet", start.Add(15*time.Second))
		granted("late", start.Add(15*time.Second))
	}
	if got := len(b.granted["quiet"]) + len(b.granted["late"]); got != 6 {
		t.Errorf("the newcomers were granted %d re-checks, want their shares, 3 each", got)
	}
	// The flood's grants age: in the second minute nobody is granted while it holds its share.
	for s := 61; s < 120; s++ {
		at := start.Add(time.Duration(s) * time.Second)
		for _, tenant := range []string{"flood", "quiet", "late"} {
			b.prune(at)
			held := len(b.granted[tenant])
			if granted(tenant, at) && held >= 3 {
				t.Fatalf("at %d s %s was granted a re-check while holding %d, its share 3", s, tenant, held)
			}
		}
	}
	if b.total > 12 {
		t.Errorf("%d re-checks in a minute, budget 12", b.total)
	}
	if off := newRecheckBudget(0); off.take("any", start) {
		t.Error("a budget of 0 granted a re-check")
	}
}

// TestDispatchCoalescesAndCounts: the events of one cluster before its re-check starts make one
// re-check (costing the budget once); an event of no watched cluster is ignored; one past its
// tenant's budget is over_budget and starts nothing.
func TestDispatchCoalescesAndCounts(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	e := &Exporter{}
	budget := newRecheckBudget(1)
	pending := make(map[string]*pendingRecheck)
	a := []watched{{clusterID: "a", tenant: "account:d/acme"}}
	b := []watched{{clusterID: "b", tenant: "account:d/acme"}}
	ev := func(s int) events.Event {
		return events.Event{Type: "VM.START", Received: now.Add(time.Duration(s) * time.Second)}
	}
	for i, tt := range []struct {
		clusters []watched
		want     events.Result
	}{
		{a, events.Accepted},
		{a, events.Accepted}, // joins the pending re-check, free
		{nil, events.Ignored},
		{b, events.OverBudget},
	} {
		if got := e.dispatch(ev(i), tt.clusters, budget, pending, 2*time.Second); got != tt.want {
			t.Errorf("event %d: %s, want %s", i, got, tt.want)
		}
	}
	if len(pending) != 1 || len(pending["a"].events) != 2 || !pending["a"].due.Equal(now.Add(2*time.Second)) {
		t.Errorf("pending %+v, want a's one re-check due 2 s after its first event, with both events", pending)
	}
}
