package e2e

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/dashboards"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

const driftAlert = "CKSVMMapDrift"

// TestAlerting runs the whole alerting path with the shipped rules, dashboards and example
// configurations: a simulated cloud, two replicas of the exporter in alertmanager mode (as the
// README advises for several replicas), a real Prometheus that scrapes both and evaluates the
// rules, and a real Alertmanager that routes the drift alert to the webhook of one replica, the
// bridge, which announces it to CloudStack, and announces its end. The second replica makes
// "one alert per finding" a claim that could fail: each replica exports the finding.
func TestAlerting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus and Alertmanager")
	}
	tl := requireTools(t)
	began := time.Now()

	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	alpha, err := sim.AddCluster(simulator.ClusterSpec{Name: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	beta, err := sim.AddCluster(simulator.ClusterSpec{Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}

	// The kubectl failures panel reads a counter that has a series per reason only once a
	// listing failed; in a healthy cloud it shows no data. One failed listing on beta before
	// Prometheus starts gives it a series without raising any alert.
	sim.Node(beta.ID).SetMode(sshtest.FailCommand)
	exp := startExporter(t, sim)     // the bridge: Alertmanager's webhook points at it
	replica := startExporter(t, sim) // its own state file; Alertmanager does not call it
	for _, e := range []*runningExporter{exp, replica} {
		waitUntil(t, waitTimeout, "a failed kubectl listing on beta", func() (bool, string) {
			_, n := sum(e.metrics(t), "cks_drift_kubectl_failures_total{")
			return n > 0, "no cks_drift_kubectl_failures_total series on " + e.addr
		})
	}
	sim.Node(beta.ID).SetMode(sshtest.Normal)
	for _, e := range []*runningExporter{exp, replica} {
		waitUntil(t, waitTimeout, "beta's node list to be read again", func() (bool, string) {
			m := e.metrics(t)
			key := `cks_drift_kubectl_reachable{cluster_id="` + beta.ID + `",cluster_name="beta"}`
			return m[key] == 1, fmt.Sprint(e.addr, ": ", key, " = ", m[key])
		})
	}

	dir := t.TempDir()
	amAddr := freeAddr(t)
	amConfig := alertmanagerConfig(t, dir, exp.addr)
	runTool(t, tl.amtool, "check-config", amConfig)
	// --cluster.listen-address= turns clustering off; at debug level its log, printed if the test
	// fails, shows every flush and notification.
	startProc(t, "alertmanager", amAddr, tl.alertmanager,
		"--config.file="+amConfig, "--storage.path="+t.TempDir(),
		"--web.listen-address="+amAddr, "--cluster.listen-address=", "--log.level=debug")

	rulesFile := rulesCopy(t, dir)
	runTool(t, tl.promtool, "check", "rules", rulesFile)
	promConfig := prometheusConfig(t, dir, rulesFile, amAddr, exp.addr, replica.addr)
	runTool(t, tl.promtool, "check", "config", promConfig)
	promAddr := freeAddr(t)
	startProc(t, "prometheus", promAddr, tl.prometheus,
		"--config.file="+promConfig, "--storage.tsdb.path="+t.TempDir(), "--web.listen-address="+promAddr)
	t.Logf("started Prometheus and Alertmanager after %v", time.Since(began).Round(time.Millisecond))

	// Baseline: both targets are up, both replicas checked both clusters, every alerting rule has been
	// evaluated on that data without error, and nothing drifts.
	var upAt time.Time
	waitUntil(t, waitTimeout, "both cks-drift targets to be up with both clusters", func() (bool, string) {
		up := query(t, promAddr, `up{job="cks-drift"} == 1`)
		checked := query(t, promAddr, `count(cks_drift_cluster_checked == 1) == 4`)
		upAt = time.Now()
		return len(up) == 2 && len(checked) == 1, fmt.Sprintf("up: %v, checked clusters of both replicas: %v", up, checked)
	})
	waitUntil(t, waitTimeout, "every alerting rule to be evaluated after the first scrape", func() (bool, string) {
		rs := alertRules(t, promAddr)
		for _, r := range rs {
			if r.Health == "err" {
				t.Fatalf("rule %s fails: %s", r.Name, r.LastError)
			}
			if r.Health != "ok" || r.LastEvaluation.Before(upAt) {
				return false, fmt.Sprintf("%s: health %q, last evaluated %v", r.Name, r.Health, r.LastEvaluation)
			}
		}
		return len(rs) > 0, fmt.Sprintf("%d alerting rules", len(rs))
	})
	if a := alerts(t, promAddr, driftAlert); len(a) != 0 {
		t.Fatalf("%s before any drift: %v", driftAlert, a)
	}
	if w := exp.tap.received(); len(w) != 0 {
		t.Fatalf("webhooks before any drift: %v", w)
	}

	// Drift: the map row of alpha's second worker is deleted.
	vmName := alpha.VMs[2]
	var vmID string
	sim.CloudStack.Read(func(w *cloudstacktest.World) { vmID = w.VMByName(vmName).ID })
	restore, err := sim.DeleteMapRow(alpha.ID, vmName)
	if err != nil {
		t.Fatal(err)
	}
	driftAt := time.Now()

	var firing promAlert
	waitUntil(t, waitTimeout, driftAlert+" to fire in Prometheus", func() (bool, string) {
		as := alerts(t, promAddr, driftAlert)
		if len(as) == 1 && as[0].State == "firing" {
			firing = as[0]
			return true, ""
		}
		return false, fmt.Sprint(as)
	})
	t.Logf("%s fired %v after the drift", driftAlert, time.Since(driftAt).Round(time.Millisecond))
	// max by drops instance and job: one alert per finding, whatever the number of replicas.
	want := map[string]string{"alertname": driftAlert, "severity": "warning", "kind": "unmapped_vm",
		"cluster_id": alpha.ID, "cluster_name": "alpha", "vm_name": vmName, "vm_id": vmID}
	if diff := cmp.Diff(want, firing.Labels); diff != "" || vmID == "" {
		t.Fatalf("labels of the firing %s (-want +got):\n%s", driftAlert, diff)
	}
	// The alert fires on the first replica's finding; the other replica finds it in a cycle of
	// its own, which on a loaded machine can end after the alert fired. Once both have it, it is
	// still one alert.
	waitUntil(t, waitTimeout, "both replicas' finding series", func() (bool, string) {
		n := query(t, promAddr, `count(cks_drift_finding{kind="unmapped_vm"})`)
		return len(n) == 1 && n[0].value() == "2", fmt.Sprintf("finding series: %v, want one per replica", n)
	})
	if n := query(t, promAddr, `count(ALERTS{alertname="`+driftAlert+`",alertstate="firing"})`); len(n) != 1 || n[0].value() != "1" {
		t.Fatalf("firing %s alerts: %v, want exactly 1", driftAlert, n)
	}

	// Alertmanager routes it to the bridge and to the people (continue: true).
	waitUntil(t, waitTimeout, "Alertmanager to hold "+driftAlert, func() (bool, string) {
		var as []amAlert
		getJSON(t, "http://"+amAddr+"/api/v2/alerts?filter="+url.QueryEscape(`alertname="`+driftAlert+`"`), &as)
		var receivers []string
		for _, a := range as {
			for _, r := range a.Receivers {
				receivers = append(receivers, r.Name)
			}
		}
		sort.Strings(receivers)
		return len(as) == 1 && slices.Equal(receivers, []string{bridgeReceiver, "default"}), fmt.Sprintf("alerts %v, receivers %v", as, receivers)
	})

	// The bridge announces it to CloudStack once, although Alertmanager repeats it.
	warnPrefix := "[WARN] VM " + vmName + " "
	warnText := "is named as a node of Kubernetes cluster alpha"
	waitUntil(t, waitTimeout, "the WARN annotation and the alert in CloudStack", func() (bool, string) {
		w := writes(sim)
		return countPrefix(w.annotations, warnPrefix) > 0 && len(storedAlerts(sim, vmName)) > 0, fmt.Sprint(w)
	})
	announcedAt := time.Now()
	t.Logf("announced in CloudStack %v after the drift", announcedAt.Sub(driftAt).Round(time.Millisecond))
	waitUntil(t, waitTimeout, "Alertmanager to repeat the firing notification", func() (bool, string) {
		n := 0
		for _, w := range bridgeWebhooks(exp.tap.received(), "firing") {
			if w.at.After(announcedAt) {
				n++
			}
		}
		return n >= 1, fmt.Sprintf("%d firing webhooks after the announcement", n)
	})
	for _, w := range bridgeWebhooks(exp.tap.received(), "firing") {
		if len(w.Alerts) != 1 || !maps.Equal(w.Alerts[0].Labels, want) {
			t.Errorf("firing webhook with other alerts than %v: %+v", want, w.Alerts)
		}
	}
	w := writes(sim)
	if n := countPrefix(w.annotations, warnPrefix); n != 1 || !strings.Contains(w.annotations[0], warnText) || len(w.annotations) != 1 {
		t.Errorf("annotations: %q, want exactly one %q...%q", w.annotations, warnPrefix, warnText)
	}
	if len(w.alerts) != 1 {
		t.Errorf("generateAlert calls: %q, want exactly one", w.alerts)
	}
	if stored := storedAlerts(sim, vmName); len(stored) != 1 {
		t.Errorf("un-archived %s alerts for %s in CloudStack: %q, want exactly one", notifier.AlertName, vmName, stored)
	}
	if v := exp.metrics(t)[`cks_drift_alertmanager_webhooks_total{result="accepted"}`]; v < 2 {
		t.Errorf(`bridge: cks_drift_alertmanager_webhooks_total{result="accepted"} = %v, want at least 2 (a notification and a repeat)`, v)
	}
	if w := replica.tap.received(); len(w) != 0 {
		t.Errorf("the replica got %d webhooks, want none: only the bridge is a receiver", len(w))
	}

	// While the drift is on, every dashboard query returns data.
	checkDashboards(t, promAddr)

	// The drift ends: the alert resolves in Prometheus, Alertmanager sends the resolution to
	// the bridge, and CloudStack gets the INFO annotation and no new alert.
	restore()
	restoredAt := time.Now()
	waitUntil(t, waitTimeout, driftAlert+" to resolve in Prometheus", func() (bool, string) {
		as := alerts(t, promAddr, driftAlert)
		return len(as) == 0, fmt.Sprint(as)
	})
	t.Logf("%s resolved in Prometheus %v after the restore", driftAlert, time.Since(restoredAt).Round(time.Millisecond))
	var resolvedAt time.Time
	waitUntil(t, waitTimeout, "Alertmanager to send the resolved notification to the bridge", func() (bool, string) {
		for _, w := range exp.tap.received() {
			if w.Receiver == bridgeReceiver && len(w.Alerts) == 1 && w.Alerts[0].Status == "resolved" && w.Alerts[0].Labels["vm_name"] == vmName {
				resolvedAt = w.at
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d webhooks, none resolved", len(exp.tap.received()))
	})
	info := notifier.InfoAnnotation(notifier.Resolution(collector.SideVM, "alpha"))
	waitUntil(t, waitTimeout, "the INFO annotation in CloudStack", func() (bool, string) {
		w := writes(sim)
		return slices.Contains(w.annotations, info), fmt.Sprint(w)
	})
	// The resolution is announced by a pass of the exporter's loop; two more cycles after the
	// resolved webhook give any late write the time to show.
	cycles := exp.metrics(t)["cks_drift_cycles_total"]
	waitUntil(t, waitTimeout, "two more check cycles", func() (bool, string) {
		c := exp.metrics(t)["cks_drift_cycles_total"]
		return c >= cycles+2, fmt.Sprint("cycles ", c)
	})
	w = writes(sim)
	if len(w.annotations) != 2 || w.annotations[1] != info {
		t.Errorf("annotations: %q, want the WARN one and then exactly one %q", w.annotations, info)
	}
	if len(w.alerts) != 1 {
		t.Errorf("generateAlert calls after the resolution: %q, want still exactly one", w.alerts)
	}
	if stored := storedAlerts(sim, vmName); len(stored) != 0 {
		t.Errorf("un-archived alerts for %s after the resolution: %q, want none", vmName, stored)
	}
	if infoAt := w.infoAt(info); infoAt.Before(resolvedAt) {
		t.Logf("note: CloudStack got the INFO annotation %v before Alertmanager's resolved notification reached the bridge: the exporter resolves on its own cycle",
			resolvedAt.Sub(infoAt).Round(time.Millisecond))
	}
	t.Logf("scenario took %v", time.Since(began).Round(time.Millisecond))
}

// checkDashboards runs every query of the shipped dashboards as an instant query and fails for
// each that returns no data, naming the dashboard. The queries over [1h] windows need two samples
// of each series, so it first waits for a few scrapes.
func checkDashboards(t *testing.T, prom string) {
	t.Helper()
	waitUntil(t, waitTimeout, "five scrapes of each replica", func() (bool, string) {
		s := query(t, prom, `min(count_over_time(up{job="cks-drift"}[1h]))`)
		if len(s) != 1 {
			return false, fmt.Sprint(s)
		}
		n, _ := strconv.Atoi(s[0].value())
		return n >= 5, s[0].value() + " scrapes"
	})
	qs, err := dashboards.Queries()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, file := range slices.Sorted(maps.Keys(qs)) {
		for _, q := range qs[file] {
			total++
			if len(query(t, prom, q)) == 0 {
				t.Errorf("dashboard %s: query returns no data: %s", file, q)
			}
		}
	}
	if total == 0 {
		t.Fatal("dashboards.Queries returned no query")
	}
	t.Logf("%d dashboard queries returned data", total)
}

// cloudStackWrites are the notifier's writes that CloudStack received, in order.
type cloudStackWrites struct {
	annotations []string // addAnnotation texts
	alerts      []string // generateAlert descriptions
	calls       []cloudstacktest.Call
}

func writes(sim *simulator.Simulator) cloudStackWrites {
	var w cloudStackWrites
	for _, c := range sim.CloudStack.Calls() {
		switch c.Command {
		case "addAnnotation":
			w.annotations = append(w.annotations, c.Params.Get("annotation"))
			w.calls = append(w.calls, c)
		case "generateAlert":
			w.alerts = append(w.alerts, c.Params.Get("name")+": "+c.Params.Get("description"))
		}
	}
	return w
}

func (w cloudStackWrites) String() string {
	return fmt.Sprintf("annotations %q, alerts %q", w.annotations, w.alerts)
}

// infoAt returns when CloudStack received the annotation text.
func (w cloudStackWrites) infoAt(text string) time.Time {
	for _, c := range w.calls {
		if c.Params.Get("annotation") == text {
			return c.Time
		}
	}
	return time.Time{}
}

func countPrefix(s []string, prefix string) int {
	n := 0
	for _, v := range s {
		if strings.HasPrefix(v, prefix) {
			n++
		}
	}
	return n
}

// storedAlerts returns the descriptions of CloudStack's un-archived alerts of the notifier that
// name the VM.
func storedAlerts(sim *simulator.Simulator, vmName string) []string {
	var out []string
	sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			if !a.Archived && a.Name == notifier.AlertName && strings.Contains(a.Description, "VM "+vmName+" ") {
				out = append(out, a.Description)
			}
		}
	})
	return out
}

// bridgeWebhooks returns the webhooks to the bridge receiver with the given status.
func bridgeWebhooks(ws []webhook, status string) []webhook {
	var out []webhook
	for _, w := range ws {
		if w.Receiver == bridgeReceiver && w.Status == status {
			out = append(out, w)
		}
	}
	return out
}
