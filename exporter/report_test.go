package exporter

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestReportScenarios follows scenarios 1, 2, 4, 5, 7 (grace) and 8 of docs/scenarios.md on one
// cluster, across cycles, through /metrics, the calls CloudStack receives and the log.
func TestReportScenarios(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 2}, simulator.ClusterSpec{Name: "other", Workers: 1})
	test := cs[0]
	worker := test.VMs[2]
	e.writeConfig("  interval: 100ms\n", "")
	e.start()

	// 1: baseline. Every cluster checked, no finding, no write, nothing logged at info or above.
	e.nextCycles(3)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("baseline findings: %v", f)
	}
	m := e.metrics()
	if got := matching(m, `^cks_drift_cluster_checked\{`); len(got) != 2 {
		t.Fatalf("cluster_checked series: %v", got)
	}
	for k, v := range matching(m, `^cks_drift_(cluster_checked|kubectl_reachable|up)`) {
		if v != 1 {
			t.Errorf("%s = %v, want 1", k, v)
		}
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("baseline writes: %v", w)
	}
	if l := withoutFirstPins(e.logs.since(0, slog.LevelInfo)); len(l) != 0 {
		t.Fatalf("logged at info or above while everything matches: %+v", l)
	}

	// 2: a worker's map row deleted: one WARN, one annotation, one alert; nothing more later.
	restoreRow, err := e.sim.DeleteMapRow(test.ID, worker)
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("unmapped_vm", func() bool { return slices.Equal(e.findings(), []string{"test unmapped_vm " + worker}) })
	e.nextCycles(3)
	w := e.writes()
	if count(w, "addAnnotation [WARN] VM "+worker, "is named as a node of Kubernetes cluster test but is not one of its VMs in CloudStack") != 1 ||
		count(w, "generateAlert VM "+worker, "This is only reported, nothing was changed.") != 1 || len(w) != 2 {
		t.Fatalf("writes after the row was deleted: %q", w)
	}
	if a := e.storedAlerts(); len(a) != 1 {
		t.Fatalf("stored alerts: %q", a)
	}
	warns := e.logs.since(0, slog.LevelWarn)
	if len(warns) != 1 || warns[0].Attrs["kind"] != "unmapped_vm" {
		t.Fatalf("WARN lines: %+v", warns)
	}
	mark := e.logs.mark()
	restoreRow()
	e.waitFor("the finding to clear", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	w = e.writes()[2:]
	if count(w, "addAnnotation [INFO] The VM map of Kubernetes cluster test matches the VMs of the cluster in CloudStack again") != 1 ||
		count(w, "archiveAlerts") != 1 || len(w) != 2 {
		t.Fatalf("writes after the row was restored: %q", w)
	}
	if a := e.storedAlerts(); len(a) != 0 {
		t.Fatalf("the cleared finding's alert is not archived: %q", a)
	}
	if l := e.logs.since(mark, slog.LevelInfo); len(l) != 1 || l[0].Level != slog.LevelInfo {
		t.Fatalf("log after the row was restored: %+v", l)
	}

	// 4: kubelet stopped, node deleted: the VM runs but is not a node.
	written := len(e.writes())
	restartKubelet, err := e.sim.StopKubelet(test.ID, worker)
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("vm_not_a_node", func() bool { return slices.Equal(e.findings(), []string{"test vm_not_a_node " + worker}) })
	e.nextCycles(2)
	w = e.writes()[written:]
	if count(w, "addAnnotation [WARN] VM "+worker, "is running but is not a Kubernetes node of the cluster") != 1 || len(w) != 2 {
		t.Fatalf("writes for vm_not_a_node: %q", w)
	}

	// 5: SSH broken, the node back in Kubernetes and the row deleted again: only the VM side
	// runs; the node finding is kept, neither cleared nor repeated.
	written = len(e.writes())
	mark = e.logs.mark()
	e.sim.Node(test.ID).SetMode(sshtest.Refuse)
	// Refuse applies to connections accepted from now on: a cycle already listing the nodes
	// would still see the node come back. The second cycle from now started after this one.
	e.nextCycles(2)
	restartKubelet()
	restoreRow, err = e.sim.DeleteMapRow(test.ID, worker)
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("unmapped_vm with the node finding kept", func() bool {
		return slices.Equal(e.findings(), []string{"test unmapped_vm " + worker, "test vm_not_a_node " + worker})
	})
	e.nextCycles(2)
	if r := matching(e.metrics(), `^cks_drift_kubectl_reachable\{.*cluster_name="test"`); len(r) != 1 || r[keyOf(r)] != 0 {
		t.Fatalf("kubectl_reachable of test: %v", r)
	}
	w = e.writes()[written:]
	if count(w, "addAnnotation [WARN] VM "+worker, "is named as a node") != 1 || count(w, "generateAlert") != 1 || len(w) != 2 {
		t.Fatalf("writes while SSH is broken: %q", w)
	}
	if l := e.logs.since(mark, slog.LevelInfo); count(messages(l), "matches the Kubernetes nodes") != 0 {
		t.Fatalf("node side resolved while kubectl was unreachable: %+v", l)
	}
	written = len(e.writes())
	e.sim.Node(test.ID).SetMode(sshtest.Normal)
	restoreRow()
	e.waitFor("both sides to clear", func() bool { return len(e.findings()) == 0 })
	e.nextCycles(2)
	w = e.writes()[written:]
	if count(w, "addAnnotation [INFO]", "matches the VMs of the cluster in CloudStack again") != 1 ||
		count(w, "addAnnotation [INFO]", "matches the Kubernetes nodes of the cluster again") != 1 || count(w, "generateAlert") != 0 {
		t.Fatalf("writes after SSH came back: %q", w)
	}

	// 7: a stray VM within its grace period is not flagged.
	_, expunge, err := e.sim.AddStrayVM(test.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.nextCycles(3)
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("young stray VM flagged: %v", f)
	}
	expunge()

	// 8: the only writes are annotations, alerts and archiving of the exporter's own alerts.
	for _, c := range e.sim.CloudStack.Calls() {
		if !strings.HasPrefix(c.Command, "list") && !slices.Contains([]string{"queryAsyncJobResult", "generateAlert", "archiveAlerts", "addAnnotation"}, c.Command) {
			t.Errorf("the exporter called %s", c.Command)
		}
	}
}
