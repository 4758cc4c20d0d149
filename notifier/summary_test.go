package notifier_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// openSummaries returns the descriptions of the summary alerts CloudStack holds un-archived.
func (w *world) openSummaries() []string {
	var out []string
	w.cs.Read(func(cw *cloudstacktest.World) {
		for _, a := range cw.Alerts {
			if a.Type == w.opts.Types.Max && !a.Archived {
				out = append(out, a.Description)
			}
		}
	})
	return out
}

// cappedIn returns the names of the clusters whose findings the state file marks capped.
func (w *world) cappedIn(tb testing.TB) map[string]bool {
	tb.Helper()
	out := make(map[string]bool)
	saved := w.saved(tb)
	for name, c := range w.clusters {
		for _, ss := range saved.Clusters[c.ID].Sides {
			for _, a := range ss.Findings {
				if a.Capped {
					out[name] = true
				}
			}
		}
	}
	return out
}

// TestCappedFindingStaysInTheOpenSummary: with a cap of one alert, clusters a and b each have a
// new finding in cycle 1 (one is capped) and, after a restart, cluster c two in cycle 2 (one is
// capped). The open summary alert of cycle 2 names the cluster capped in cycle 1 beside c, the
// one of cycle 1 is archived, and it stays the one open summary while its findings last; no
// finding gets a second alert, and when the capped findings clear the summary is archived. (Each
// summary counted its own cycle only and archived the one before, so the finding capped in
// cycle 1 was named in no open alert from cycle 2 on.)
func TestCappedFindingStaysInTheOpenSummary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, notifier.Options{MaxAlertsPerCycle: 1}, "a", "b", "c")
	cycle1 := map[string][]string{"a": {"a-ghost"}, "b": {"b-ghost"}}
	w.notify(w.statuses(cycle1))
	capped := w.cappedIn(t)
	if len(capped) != 1 || capped["c"] {
		t.Fatalf("cycle 1 capped findings of %v, want one of a and b", capped)
	}
	var first string
	for name := range capped {
		first = name
	}
	if got := w.openSummaries(); len(got) != 1 || !strings.Contains(got[0], w.clusters[first].ID) {
		t.Fatalf("cycle 1: open summaries %q, want one naming cluster %s (%s)", got, first, w.clusters[first].ID)
	}

	w.restart(t)
	w.advance(testInterval)
	cycle2 := map[string][]string{"a": {"a-ghost"}, "b": {"b-ghost"}, "c": {"c-ghost-1", "c-ghost-2"}}
	w.notify(w.statuses(cycle2))
	if got := w.cappedIn(t); !got["c"] || !got[first] {
		t.Fatalf("cycle 2 capped findings of %v, want %s and c", got, first)
	}
	for cycle := 2; cycle <= 4; cycle++ {
		got := w.openSummaries()
		if len(got) != 1 {
			t.Fatalf("cycle %d: %d open summary alerts, want 1", cycle, len(got))
		}
		for _, name := range []string{first, "c"} {
			if !strings.Contains(got[0], w.clusters[name].ID) {
				t.Errorf("cycle %d: the open summary %q does not name cluster %s, capped and still open", cycle, got[0], name)
			}
		}
		w.advance(testInterval)
		w.notify(w.statuses(cycle2))
	}
	if got := w.cs.CallCount("generateAlert"); got != 4 {
		t.Errorf("%d generateAlert calls, want 4: one alert each for a finding in cycles 1 and 2, and two summaries", got)
	}
	for _, f := range []string{"a-ghost", "b-ghost", "c-ghost-1", "c-ghost-2"} {
		n := 0
		for _, a := range w.alerts() {
			if strings.Contains(a.Description, "Kubernetes node "+f+" ") {
				n++
			}
		}
		if n > 1 {
			t.Errorf("finding %s got %d alerts of its own", f, n)
		}
	}

	// The capped finding of c clears: the summary stays as it was sent, with the other.
	w.advance(testInterval)
	w.notify(w.statuses(cycle1))
	if got := w.openSummaries(); len(got) != 1 {
		t.Errorf("one capped finding left: %d open summaries, want 1", len(got))
	}
	w.advance(testInterval)
	w.notify(w.statuses(nil))
	if got := w.openSummaries(); len(got) != 0 {
		t.Errorf("every capped finding cleared: open summaries %q, want none", got)
	}
}

// TestProjectsGainNoShareOfTheAlertCap: a tenant with a cluster in each of 20 projects of the
// victim's domain, each with a new finding every cycle, beside the victim's account with one new
// finding a cycle: in 10 cycles the victim's finding is alerted on its own every time. (Every
// project was an owner of its own, so the victim's finding had one of 21 turns for the 5 alerts
// of a cycle: capped in 8 of 9 trials.)
func TestProjectsGainNoShareOfTheAlertCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, notifier.Options{})
	var projects []string
	w.cs.Update(func(cw *cloudstacktest.World) {
		for i := range 20 {
			name := fmt.Sprintf("h%02d", i)
			project := fmt.Sprintf("30000000-0000-4000-8000-%012d", i)
			c := cw.AddCluster(cloudstacktest.Cluster{Name: name, State: "Running", ZoneID: w.cluster.ZoneID, ZoneName: w.cluster.ZoneName,
				Domain: "ROOT", ProjectID: project, Project: "p" + name, Created: w.cluster.Created})
			w.clusters[name] = collector.Cluster{ID: c.ID, Name: name, ZoneID: c.ZoneID, DomainID: "ROOT", ProjectID: project, Project: "p" + name}
			projects = append(projects, name)
		}
	})
	for cycle := 1; cycle <= 10; cycle++ {
		findings := map[string][]string{"prod": {fmt.Sprintf("prod-ghost-%d", cycle)}}
		for _, name := range projects {
			findings[name] = fresh(cycle, 1)
		}
		w.notify(w.statuses(findings))
		if got := w.alertsAbout("prod"); got != cycle {
			t.Fatalf("cycle %d: the victim's findings got %d alerts of their own, want %d", cycle, got, cycle)
		}
		w.advance(testInterval)
	}
}
