package exporter

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestHostileTenantsBesideAVictim runs the built binary with check.node_source kubernetes_api
// over a victim's cluster and one cluster per attack a tenant can make on the node list: a
// kubeconfig of nested YAML aliases (CloudStack's copy), 40 MiB of whitespace under gzip, 9.9 MB
// of headers, an HTTP/2 GOAWAY storm and a PING flood. The exporter stays up and small, every
// hostile node side is unreadable with its reason, cycle after cycle, and the victim's node side
// is read: its finding is found and announced once.
func TestHostileTenantsBesideAVictim(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	attacks := []string{"alias", "gzip", "headers", "goaway", "pings"}
	specs := []simulator.ClusterSpec{{Name: "victim", Workers: 2}}
	for _, a := range attacks {
		specs = append(specs, simulator.ClusterSpec{Name: a, Workers: 1})
	}
	e, cs := newEnv(t, specs...)
	victim, worker := cs[0], cs[0].VMs[2]
	startKubeAPI(t, e.sim, victim).SetNodes(nodesWithout(victim, worker)...)
	for i, a := range attacks {
		c := cs[i+1]
		switch a {
		case "goaway", "pings":
			flood := map[string]kubetest.Flood{"goaway": kubetest.GoAway, "pings": kubetest.Pings}[a]
			_, conf := kubetest.StartFrameServer(t, flood)
			e.sim.CloudStack.SetKubeconfig(c.ID, conf)
			continue
		}
		api := startKubeAPI(t, e.sim, c)
		nodes := nodesWithout(c, "")
		switch a {
		case "alias":
			e.sim.CloudStack.SetKubeconfig(c.ID, kubetest.AliasBomb(api.conf))
		case "gzip":
			api.SetAnswer(kubetest.SpacedList(nodes, 40<<20, true))
		case "headers":
			api.SetAnswer(kubetest.HugeHeaders(nodes, 9_900_000))
		}
	}
	e.writeConfig("  interval: 100ms\n", "")
	e.useKubernetesAPI()
	p := startProcess(t, bin, e.cfg)
	e.url = "http://" + p.listenAddress(t)

	e.waitFor("the victim's finding", func() bool {
		return slices.Equal(e.findings(), []string{"victim vm_not_a_node " + worker})
	})
	e.nextCycles(3)
	if f := e.findings(); !slices.Equal(f, []string{"victim vm_not_a_node " + worker}) {
		t.Errorf("findings = %v, want the victim's only", f)
	}
	m := e.metrics()
	for k, v := range matching(m, `^cks_drift_kubectl_reachable\{`) {
		want := 0.0
		if strings.Contains(k, `cluster_name="victim"`) {
			want = 1
		}
		if v != want {
			t.Errorf("%s = %v, want %v", k, v, want)
		}
	}
	for reason, atLeast := range map[string]float64{"kubeconfig_unavailable": 3, "output_too_large": 6, "other": 6} {
		if got := m[`cks_drift_kubectl_failures_total{reason="`+reason+`"}`]; got < atLeast {
			t.Errorf("failures with reason %s = %v, want at least %v (one a cycle per cluster)", reason, got, atLeast)
		}
	}
	if w := e.writes(); count(w, "addAnnotation [WARN] VM "+worker, "is running but is not a Kubernetes node") != 1 {
		t.Errorf("writes = %q, want the victim's VM annotated once", w)
	}
	peak := peakRSSKiB(t, p.cmd.Process.Pid)
	t.Logf("the exporter's peak RSS: %.1f MiB", float64(peak)/1024)
	if peak > 100<<10 {
		t.Errorf("peak RSS %d MiB, want at most 100", peak>>10)
	}
}

// peakRSSKiB reads VmHWM of /proc/PID/status.
func peakRSSKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
