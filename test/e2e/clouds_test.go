package e2e

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestSeveralClouds runs the shipped rules on a real Prometheus that scrapes two clouds, east and
// west, in the one cks-drift job the README's "Several clouds" section configures: each cloud
// has two replicas of the exporter and its target group a cloud label. Both clouds have a cluster
// named prod (names are unique per account only). Drift in east's prod is one alert, for east's
// cluster; east's CloudStack failing fires CKSDriftCheckFailing for east while west works, and
// nothing for west; east readable again, it resolves.
func TestSeveralClouds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	tl := requireTools(t)
	type cloud struct {
		sim      *simulator.Simulator
		prod     simulator.Cluster
		replicas []*runningExporter
	}
	clouds := map[string]*cloud{}
	groups := map[string][]string{}
	for _, name := range []string{"east", "west"} {
		sim, err := simulator.New(simulator.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sim.Close)
		prod, err := sim.AddCluster(simulator.ClusterSpec{Name: "prod"})
		if err != nil {
			t.Fatal(err)
		}
		c := &cloud{sim: sim, prod: prod, replicas: []*runningExporter{startExporter(t, sim), startExporter(t, sim)}}
		clouds[name] = c
		for _, r := range c.replicas {
			groups[name] = append(groups[name], r.addr)
		}
	}
	east, west := clouds["east"], clouds["west"]

	dir := t.TempDir()
	rulesFile := rulesCopy(t, dir)
	// No Alertmanager: the test reads Prometheus' alerts. Nothing listens at the address.
	promConfig := cloudsConfig(t, prometheusConfig(t, dir, rulesFile, freeAddr(t), groups["east"]...), groups)
	runTool(t, tl.promtool, "check", "config", promConfig)
	promAddr := freeAddr(t)
	startProc(t, "prometheus", promAddr, tl.prometheus,
		"--config.file="+promConfig, "--storage.tsdb.path="+t.TempDir(), "--web.listen-address="+promAddr)

	waitUntil(t, waitTimeout, "four targets up, each cloud's cluster checked by both replicas", func() (bool, string) {
		up := query(t, promAddr, `up{job="cks-drift"} == 1`)
		checked := query(t, promAddr, `count by (cloud) (cks_drift_cluster_checked == 1) == 2`)
		return len(up) == 4 && len(checked) == 2, fmt.Sprintf("up: %v, checked: %v", up, checked)
	})

	// Drift in east's prod: one alert, for east's cluster, though two replicas report it and west
	// has a cluster of the same name.
	if _, err := east.sim.DeleteMapRow(east.prod.ID, east.prod.VMs[1]); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, waitTimeout, driftAlert+" firing for east's prod", func() (bool, string) {
		a := alerts(t, promAddr, driftAlert)
		return len(a) == 1 && a[0].State == "firing", fmt.Sprint(a)
	})
	if a := alerts(t, promAddr, driftAlert)[0]; a.Labels["cloud"] != "east" || a.Labels["cluster_id"] != east.prod.ID {
		t.Fatalf("%s names cloud %q cluster %q, want east's prod %s", driftAlert, a.Labels["cloud"], a.Labels["cluster_id"], east.prod.ID)
	}

	// East's CloudStack fails while west works: the check failure of east is not masked by west.
	faulted := time.Now()
	east.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530})
	waitUntil(t, waitTimeout, "CKSDriftCheckFailing firing for east", func() (bool, string) {
		a := alerts(t, promAddr, "CKSDriftCheckFailing")
		return len(a) == 1 && a[0].State == "firing" && a[0].Labels["cloud"] == "east", fmt.Sprint(a)
	})
	// Over the time since east's fault, not at this instant: a failed scrape makes a target's
	// series stale, and on a loaded machine both of west's replicas may have just missed one.
	since := fmt.Sprintf("%ds", int(time.Since(faulted).Seconds())+1)
	if up := query(t, promAddr, `min by (cloud) (min_over_time(cks_drift_up{cloud="west"}[`+since+`])) == 1`); len(up) != 1 {
		t.Fatalf("west stopped working meanwhile: %v", up)
	}
	if a := alerts(t, promAddr, driftAlert); len(a) != 1 || a[0].Labels["cloud"] != "east" {
		t.Fatalf("the drift alert while east's CloudStack fails: %v", a)
	}
	east.sim.CloudStack.ClearFaults()
	waitUntil(t, waitTimeout, "CKSDriftCheckFailing to end", func() (bool, string) {
		a := alerts(t, promAddr, "CKSDriftCheckFailing")
		return len(a) == 0, fmt.Sprint(a)
	})
	if a := alerts(t, promAddr, "CKSDriftExporterAbsent"); len(a) != 0 {
		t.Fatalf("CKSDriftExporterAbsent with every target scraped: %v", a)
	}
	// CKSDriftExporterDown is up == 0 of one instance: only a scrape that really failed may start
	// it. On a loaded machine a scrape of a race-enabled replica can pass its timeout of one
	// second, and then it rightly does; what the clouds' target groups must never make is one
	// that no failed scrape explains.
	for _, a := range alerts(t, promAddr, "CKSDriftExporterDown") {
		failed := query(t, promAddr, fmt.Sprintf(`min_over_time(up{job="cks-drift",instance=%q}[10m]) == 0`, a.Labels["instance"]))
		if len(failed) == 0 {
			t.Fatalf("CKSDriftExporterDown (%s) for %s, whose scrapes never failed: %v", a.State, a.Labels["instance"], a)
		}
		t.Logf("a scrape of %s failed on this machine, so CKSDriftExporterDown is %s for it", a.Labels["instance"], a.State)
	}
	if w := writes(west.sim); len(w.annotations)+len(w.alerts) != 0 {
		t.Fatalf("west's CloudStack was written to: %v", w)
	}
}

// cloudsConfig rewrites the cks-drift job of a Prometheus configuration written by
// prometheusConfig into one target group per cloud with its cloud label, as the README's
// "Several clouds" section shows.
func cloudsConfig(t *testing.T, path string, groups map[string][]string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseYAML(t, path, data)
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	sort.Strings(names)
	var statics []*yaml.Node
	for _, name := range names {
		statics = append(statics, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "targets"}, scalars(groups[name]...),
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "labels"},
			{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "cloud"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: name},
			}},
		}})
	}
	for _, sc := range mustField(t, path, doc.Content[0], "scrape_configs").Content {
		if n := field(sc, "job_name"); n != nil && n.Value == "cks-drift" {
			*mustField(t, path, sc, "static_configs") = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: statics}
		}
	}
	return writeYAML(t, doc, t.TempDir(), "prometheus.yml")
}
