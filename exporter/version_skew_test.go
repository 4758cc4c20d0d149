package exporter

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestVersionSkewScenario follows the "Kubernetes version skew" scenario of docs/scenarios.md
// through both node sources: CloudStack records the upgrade of a cluster from 1.23.3 to 1.24.0
// while its nodes still run kubelet v1.23.3 (apache/cloudstack#6514), each node is found and
// announced once (WARN line, annotation, alert), a node upgraded alone leaves the others, and
// when every kubelet runs 1.24.0 the node side matches again: one [INFO] annotation, no alert.
func TestVersionSkewScenario(t *testing.T) {
	t.Parallel()
	for _, source := range []string{"ssh", "kubernetes_api"} {
		t.Run(source, func(t *testing.T) {
			t.Parallel()
			e, cs := newEnv(t, simulator.ClusterSpec{Name: "upgraded", Workers: 2, KubernetesVersion: "1.23.3"},
				simulator.ClusterSpec{Name: "other", Workers: 1})
			up := cs[0]
			e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.KubernetesVersionOf("1.24.0") }) // added before the upgrade
			// setKubelets gives the nodes of up (all when none is named) a kubelet version, on
			// the node source the exporter reads.
			var setKubelets func(version string, nodes ...string)
			e.writeConfig("  interval: 100ms\n", "")
			if source == "ssh" {
				setKubelets = func(version string, nodes ...string) {
					if _, err := e.sim.SetKubeletVersion(up.ID, version, nodes...); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				api := startKubeAPI(t, e.sim, up)
				startKubeAPI(t, e.sim, cs[1]) // its nodes: the fake's default kubelet, v1.28.4
				kubelets := map[string]string{}
				setKubelets = func(version string, nodes ...string) {
					var list []kubetest.Node
					for _, vm := range up.VMs {
						n := strings.ToLower(vm)
						if len(nodes) == 0 || slices.Contains(nodes, n) {
							kubelets[n] = version
						}
						list = append(list, kubetest.Node{Name: n, KubeletVersion: kubelets[n]})
					}
					api.SetNodes(list...)
				}
				setKubelets("v1.23.3")
				e.useKubernetesAPI()
			}
			e.start()

			// Baseline: CloudStack's 1.23.3 and the kubelets' v1.23.3 agree; the versions are
			// listed once, not every cycle.
			e.nextCycles(3)
			if f := e.findings(); len(f) != 0 {
				t.Fatalf("baseline findings: %v", f)
			}
			if n := e.sim.CloudStack.CallCount("listKubernetesSupportedVersions"); n != 1 {
				t.Errorf("listKubernetesSupportedVersions called %d times in 3 cycles, want once (cached)", n)
			}

			// CloudStack shows 1.24.0, the nodes still run v1.23.3: every node, once.
			if err := e.sim.SetKubernetesVersion(up.ID, "1.24.0"); err != nil {
				t.Fatal(err)
			}
			want, messages := skewed(up)
			e.waitFor("node_version_mismatch", func() bool { return slices.Equal(e.findings(), want) })
			e.nextCycles(3)
			w := e.writes()
			for i, vm := range up.VMs {
				msg := messages[i]
				if count(w, "addAnnotation [WARN] "+msg) != 1 || count(w, "generateAlert "+msg+". Cluster "+up.ID) != 1 {
					t.Errorf("writes for %s: want one annotation and one alert with %q in %q", vm, msg, w)
				}
			}
			if len(w) != 2*len(up.VMs) {
				t.Fatalf("writes: %q, want an annotation and an alert per node", w)
			}
			if warns := e.logs.since(0, slog.LevelWarn); count(kinds(warns), "node_version_mismatch") != len(up.VMs) {
				t.Errorf("WARN lines: %+v, want one per node", warns)
			}

			// The control node and one worker upgraded: the other worker remains, nothing is
			// announced about the two (a side matches again only when its last finding clears);
			// their alerts' types are archived, so that they are free when the drift comes back.
			control, worker, lagging := strings.ToLower(up.VMs[0]), strings.ToLower(up.VMs[1]), strings.ToLower(up.VMs[2])
			setKubelets("v1.24.0", control, worker)
			e.waitFor("one node left", func() bool {
				return slices.Equal(e.findings(), []string{"upgraded node_version_mismatch " + lagging})
			})
			e.nextCycles(2)
			if got := e.writes()[len(w):]; count(got, "archiveAlerts") != 2 || len(got) != 2 {
				t.Fatalf("writes while one node lags: %q, want the two alerts archived", got)
			}

			// Every kubelet on 1.24.0: resolved, one [INFO] annotation, no alert.
			setKubelets("v1.24.0")
			e.waitFor("no finding", func() bool { return len(e.findings()) == 0 })
			e.nextCycles(3)
			got := e.writes()[len(w):]
			if count(got, "addAnnotation [INFO] The VM map of Kubernetes cluster upgraded "+nodeSideAgain) != 1 ||
				count(got, "generateAlert") != 0 || count(got, "addAnnotation") != 1 {
				t.Fatalf("writes after the upgrade finished: %q, want the one [INFO] annotation and no alert", got)
			}
			if a := e.storedAlerts(); len(a) != 0 {
				t.Errorf("alerts not archived after the fix: %q", a)
			}
			if n := e.sim.CloudStack.CallCount("listKubernetesSupportedVersions"); n != 1 {
				t.Errorf("listKubernetesSupportedVersions called %d times, want once: both versions were known", n)
			}
		})
	}
}

// kinds returns the kind of each log line.
func kinds(lines []logLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Attrs["kind"]
	}
	return out
}

// skewed is what the skew scenario reports for the cluster "upgraded" once CloudStack records
// 1.24.0 while its nodes run v1.23.3: a finding per node, and each finding's message, in the
// order of the cluster's VMs.
func skewed(up simulator.Cluster) (findings, messages []string) {
	for _, vm := range up.VMs {
		node := strings.ToLower(vm)
		findings = append(findings, "upgraded node_version_mismatch "+node)
		messages = append(messages, "Kubernetes node "+node+" of cluster upgraded runs kubelet v1.23.3 but the cluster's Kubernetes version in CloudStack is 1.24.0")
	}
	return findings, messages
}
