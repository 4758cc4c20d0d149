package exporter

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// TestRecheckBudgetIsSharedByTenant: a tenant alone may use the whole budget; once another
// tenant asks, the first gets nothing more until it is back under its equal share, and the
// newcomer gets re-checks within the minute; the cloud never gets more than the budget a minute.
func TestRecheckBudgetIsSharedByTenant(t *testing.T) {
	start := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	b := newRecheckBudget(10)
	granted := func(tenant string, at time.Time) bool { return b.take(tenant, at) }
	for i := range 10 {
		if !granted("flood", start.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("the lone tenant refused its re-check %d", i+1)
		}
	}
	if granted("flood", start.Add(11*time.Second)) || granted("quiet", start.Add(12*time.Second)) {
		t.Fatal("more than 10 re-checks in a minute")
	}
	// The flood's first grants age: from then on the quiet tenant gets the freed ones, the flood
	// none while it holds more than its half.
	var flood, quiet int
	for s := 61; s < 120; s++ {
		at := start.Add(time.Duration(s) * time.Second)
		if granted("flood", at) {
			flood++
		}
		if granted("quiet", at) {
			quiet++
		}
	}
	if quiet < 5 || flood > 5 {
		t.Errorf("in the second minute: flood %d, quiet %d re-checks; want quiet its half (5) and flood no more", flood, quiet)
	}
	if b.total > 10 {
		t.Errorf("%d re-checks in a minute, budget 10", b.total)
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
