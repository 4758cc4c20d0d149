package exporter

import (
	"log/slog"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestAnnotationsUnsupportedRelease runs the exporter against a 4.14 management server, which
// cannot annotate Kubernetes clusters (AnnotationService.EntityType at 4.14.0.0 and 4.15.0.0
// holds HOST, DOMAIN and VM only): the first refusal is explained by listApis, said once at WARN,
// and from then on every finding still gets its alert, its annotation is skipped and counted, and
// addAnnotation is never called again.
func TestAnnotationsUnsupportedRelease(t *testing.T) {
	t.Parallel()
	e, _ := newEnv(t)
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Release = cloudstacktest.Release414 })
	var cs []simulator.Cluster
	for _, name := range []string{"one", "two"} {
		c, err := e.sim.AddCluster(simulator.ClusterSpec{Name: name, Pre416: true, NodeUser: "core"})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	e.writeConfig("  interval: 100ms\n", "")
	e.setConfig(replaceOnce(t, e.config(), "ssh:\n", "ssh:\n  user: core\n"))
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() >= 1 })

	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the first finding's alert", func() bool { return len(e.storedAlerts()) == 1 })
	e.waitFor("one annotation skipped", func() bool { return e.metrics()["cks_drift_annotations_skipped_total"] == 1 })
	if _, err := e.sim.DeleteMapRow(cs[1].ID, cs[1].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the second finding's alert", func() bool { return len(e.storedAlerts()) == 2 })
	e.waitFor("two annotations skipped", func() bool { return e.metrics()["cks_drift_annotations_skipped_total"] == 2 })
	e.nextCycles(3)

	if n := e.sim.CloudStack.CallCount("addAnnotation"); n != 1 {
		t.Errorf("addAnnotation called %d times, want 1 (the refusal that told the release)", n)
	}
	if n := e.sim.CloudStack.CallCount("listAnnotations"); n != 0 {
		t.Errorf("listAnnotations called %d times, want 0", n)
	}
	if got := e.metrics()["cks_drift_annotations_skipped_total"]; got != 2 {
		t.Errorf("cks_drift_annotations_skipped_total = %v, want 2", got)
	}
	var warned int
	for _, l := range e.logs.since(0, slog.LevelWarn) {
		if l.Msg == annotationsUnsupportedLog {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d WARN lines about annotations, want 1", warned)
	}
}

const annotationsUnsupportedLog = "This CloudStack release has no annotations on Kubernetes clusters (they arrive in 4.16): only alerts are sent from now on, and skipped annotations are counted in cks_drift_annotations_skipped_total"
