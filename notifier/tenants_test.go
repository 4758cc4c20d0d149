package notifier_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	notifiercs "github.com/cks-drift-exporter/cks-drift-exporter/notifier/cloudstack"
)

// world is two tenants in one cloud: a noisy one, whose clusters are named to sort first and
// whose control nodes print fresh node names, and a victim with one cluster and one real finding.
type world struct {
	*notifierEnv
	clusters map[string]collector.Cluster // by name
}

// newWorld adds, beside the env's own cluster (left unused), the noisy tenant's clusters and the
// victim's cluster "prod".
func newWorld(tb testing.TB, opts notifier.Options, noisy ...string) *world {
	tb.Helper()
	w := &world{notifierEnv: newNotifierEnv(tb, opts), clusters: make(map[string]collector.Cluster)}
	add := func(name, account string) {
		w.cs.Update(func(cw *cloudstacktest.World) {
			c := cw.AddCluster(cloudstacktest.Cluster{Name: name, State: "Running", ZoneID: w.cluster.ZoneID, ZoneName: w.cluster.ZoneName,
				Account: account, Domain: "ROOT", Created: w.cluster.Created})
			w.clusters[name] = collector.Cluster{ID: c.ID, Name: name, ZoneID: c.ZoneID, Account: account, DomainID: "ROOT"}
		})
	}
	for _, name := range noisy {
		add(name, "noisy")
	}
	add("prod", "victim")
	return w
}

// statuses is every cluster of the world checked, with the node findings named.
func (w *world) statuses(findings map[string][]string) []collector.ClusterStatus {
	var out []collector.ClusterStatus
	for name, c := range w.clusters {
		st := collector.ClusterStatus{Cluster: c, Checked: true, Nodes: collector.NodesRead(nil, nil)}
		for _, node := range findings[name] {
			st.Add(nodeFinding(name, node))
		}
		out = append(out, st)
	}
	return out
}

// fresh is n node names never printed before, the noisy control node's output of a cycle.
func fresh(cycle, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("fake-%d-%04d", cycle, i)
	}
	return out
}

// alertsAbout counts the generateAlert calls whose description is about the cluster's own finding
// (the summary names clusters too, but is not one of them).
func (w *world) alertsAbout(cluster string) int {
	n := 0
	for _, c := range w.cs.Calls() {
		if c.Command == "generateAlert" && strings.Contains(c.Params.Get("description"), " of cluster "+cluster+" has no VM") {
			n++
		}
	}
	return n
}

// writesTo counts the annotations on the cluster and the alerts about it.
func (w *world) writesTo(cluster string) int {
	n := w.alertsAbout(cluster)
	w.cs.Read(func(cw *cloudstacktest.World) {
		for _, a := range cw.Annotations {
			if a.EntityID == w.clusters[cluster].ID {
				n++
			}
		}
	})
	return n
}

// restart replaces the notifier with a new one on the same state file, as a restart of the
// exporter does.
func (w *world) restart(tb testing.TB) {
	tb.Helper()
	api, err := cloudstackapi.New(cloudstackapi.Options{Endpoint: w.cs.Endpoint(), APIKey: w.cs.APIKey(), SecretKey: w.cs.SecretKey(), Timeout: config.Defaults().CloudStack.Timeout})
	if err != nil {
		tb.Fatal(err)
	}
	w.reg = prometheus.NewRegistry()
	w.n, err = notifier.New(notifiercs.New(api, config.Defaults().CloudStack.PageSize), w.store, w.opts, notifier.NewMetrics(w.reg), slog.New(slog.NewTextHandler(w.logs, nil)), w.clock)
	if err != nil {
		tb.Fatal(err)
	}
}

// TestNoisyTenantCannotTakeTheAlertCap: a tenant whose cluster "0" sorts first and lists 1,000
// new fake nodes, and whose second cluster "00" has one finding, beside a victim with one real
// finding. With the default cap of 5, the victim's finding is alerted on its own in the first
// cycle, and so is the noisy tenant's other cluster; the rest is in the summary. (Walking the
// clusters by name gave all five alerts to "0".)
func TestNoisyTenantCannotTakeTheAlertCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, notifier.Options{}, "0", "00")
	w.notify(w.statuses(map[string][]string{"0": fresh(1, 1000), "00": {"stray"}, "prod": {"prod-ghost"}}))
	if got := w.alertsAbout("prod"); got != 1 {
		t.Errorf("the victim's finding got %d alerts of its own in the first cycle, want 1", got)
	}
	if got := w.alertsAbout("00"); got != 1 {
		t.Errorf("the noisy tenant's second cluster got %d alerts, want 1 (a cluster of the owner without one comes before a second)", got)
	}
	if got, want := w.alertsAbout("0"), w.opts.MaxAlertsPerCycle-2; got != want {
		t.Errorf("cluster 0 got %d alerts, want the %d left", got, want)
	}
	if got := w.cs.CallCount("generateAlert"); got != w.opts.MaxAlertsPerCycle+1 {
		t.Errorf("%d generateAlert calls, want %d and the summary", got, w.opts.MaxAlertsPerCycle)
	}
	if got, want := w.counter(t, "cks_drift_notifications_capped_total"), float64(1000-(w.opts.MaxAlertsPerCycle-2)); got != want {
		t.Errorf("capped = %v, want %v", got, want)
	}
}

// TestNoisyClusterCannotHoldEveryAlertType: with a range of 10 alert types, a control node that
// keeps its fake nodes and adds 6 new ones every cycle holds at most max_alerts_per_cycle (5)
// types, so the victim's finding, new in the fifth cycle, still gets an alert of its own. (Types
// were held per finding without a limit per cluster: two cycles used up the range, and the
// victim's finding went into the summary.)
func TestNoisyClusterCannotHoldEveryAlertType(t *testing.T) {
	t.Parallel()
	w := newWorld(t, notifier.Options{Types: notifier.TypeRange{Min: 20000, Max: 20010}}, "0")
	var nodes []string
	for cycle := 1; cycle <= 4; cycle++ {
		nodes = append(nodes, fresh(cycle, 6)...)
		w.notify(w.statuses(map[string][]string{"0": nodes}))
		w.advance(testInterval)
	}
	held := 0
	for _, ss := range w.saved(t).Clusters[w.clusters["0"].ID].Sides {
		for _, a := range ss.Findings {
			if a.AlertType != 0 {
				held++
			}
		}
	}
	if held > w.opts.MaxAlertsPerCycle {
		t.Errorf("the noisy cluster holds %d alert types, want at most %d", held, w.opts.MaxAlertsPerCycle)
	}
	w.notify(w.statuses(map[string][]string{"0": append(nodes, fresh(5, 6)...), "prod": {"prod-ghost"}}))
	if got := w.alertsAbout("prod"); got != 1 {
		t.Errorf("the victim's finding got %d alerts of its own, want 1 (the range is not the noisy cluster's alone)", got)
	}
}

// TestNoisyClusterBoundedOverADay: a control node that prints 1,000 fresh node names every cycle
// gets at most max_announcements_per_cluster_per_day annotations and alerts in 24 hours, and one
// summary annotation that says so, also across a restart; the findings past it are counted. The
// victim's finding, new after the noisy cluster used its budget, is announced. After 24 hours the
// noisy cluster is announced again. (The caps were per cycle: 10 annotations, a summary and 5
// alerts every cycle.)
func TestNoisyClusterBoundedOverADay(t *testing.T) {
	t.Parallel()
	const budget = 30
	w := newWorld(t, notifier.Options{MaxPerClusterPerDay: budget}, "0")
	cycle := 0
	run := func(cycles int, victim ...string) {
		for range cycles {
			cycle++
			w.notify(w.statuses(map[string][]string{"0": fresh(cycle, 1000), "prod": victim}))
			w.advance(testInterval)
		}
	}
	run(6)
	if got := w.writesTo("0"); got != budget+1 {
		t.Errorf("6 cycles: %d annotations and alerts about the noisy cluster, want the budget of %d and one summary", got, budget)
	}
	summaries := 0
	for _, a := range w.annotations() {
		if strings.Contains(a, "per cluster in 24 hours") {
			summaries++
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary annotations of the used-up budget, want 1", summaries)
	}
	if got := w.counter(t, "cks_drift_notifications_over_daily_budget_total"); got == 0 {
		t.Error("no finding counted past the daily budget")
	}

	w.restart(t)
	run(6, "prod-ghost")
	if got := w.writesTo("0"); got != budget+1 {
		t.Errorf("after a restart: %d annotations and alerts about the noisy cluster, want still %d", got, budget+1)
	}
	if got := w.counter(t, "cks_drift_notifications_over_daily_budget_total"); got == 0 {
		t.Error("after a restart: nothing counted past the daily budget")
	}
	if got := w.alertsAbout("prod"); got != 1 {
		t.Errorf("the victim's finding got %d alerts, want 1", got)
	}

	w.advance(24 * time.Hour)
	run(1, "prod-ghost")
	if got := w.writesTo("0"); got <= budget+1 {
		t.Errorf("24 hours later: %d annotations and alerts about the noisy cluster, want more than %d", got, budget+1)
	}
}
