package notifier_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestWebhookRoundsStayUnderTheCaps posts 20 rounds of firing and resolved with made-up
// fingerprints for a finding, each round followed by the notification pass the exporter runs
// for a webhook. Within one check interval CloudStack gets at most max_alerts_per_cycle alerts
// plus one summary, and the cluster at most max_annotations_per_cluster annotations plus one
// summary (every pass once had a cap of its own: 21 alerts and 42 annotations). The next
// interval announces again.
func TestWebhookRoundsStayUnderTheCaps(t *testing.T) {
	const maxAlerts, maxAnnotations = 5, 10
	e := newNotifierEnv(t, notifier.Options{FromAlertmanager: true, MaxAlertsPerCycle: maxAlerts, MaxAnnotationsPerCluster: maxAnnotations})
	f := nodeFinding("prod", "ghost")
	start := time.Date(2026, 6, 5, 20, 0, 0, 0, time.UTC)
	round := func(i int) {
		fp, startsAt := fmt.Sprintf("made-up-%d", i), start.Add(time.Duration(i)*time.Minute)
		e.n.Receive(firing(fp, e.cluster.ID, f, startsAt))
		e.notify(e.status(f))
		e.n.Receive(resolved(fp, e.cluster.ID, f, startsAt))
		e.notify(e.status(f))
		e.advance(time.Second)
	}
	for i := range 20 {
		round(i)
	}
	alerts, annotations := e.cs.CallCount("generateAlert"), e.cs.CallCount("addAnnotation")
	if alerts > maxAlerts+1 || annotations > maxAnnotations+1 {
		t.Fatalf("20 rounds in one interval: %d generateAlert and %d addAnnotation calls, want at most %d and %d", alerts, annotations, maxAlerts+1, maxAnnotations+1)
	}
	if alerts < maxAlerts || annotations < maxAnnotations {
		t.Fatalf("20 rounds in one interval: %d alerts and %d annotations, want the caps used (%d, %d)", alerts, annotations, maxAlerts, maxAnnotations)
	}
	if got := e.counter(t, "cks_drift_notifications_capped_total"); got == 0 {
		t.Error("no finding counted as capped")
	}

	e.advance(testInterval)
	round(20)
	if got := e.cs.CallCount("addAnnotation"); got <= annotations {
		t.Errorf("the next interval sent no annotation (%d before, %d after)", annotations, got)
	}
}

// TestAnnotationCapOneCluster20000Nodes: a control node that prints 20,000 node names (every one a
// node_without_vm finding) makes at most max_annotations_per_cluster annotations and one summary
// that counts the rest, and at most max_alerts_per_cycle alerts and one summary; the next cycle
// sends nothing more.
func TestAnnotationCapOneCluster20000Nodes(t *testing.T) {
	const nodes, maxAlerts, maxAnnotations = 20000, 5, 10
	e := newNotifierEnv(t, notifier.Options{MaxAlertsPerCycle: maxAlerts, MaxAnnotationsPerCluster: maxAnnotations})
	findings := make([]collector.Finding, nodes)
	for i := range findings {
		findings[i] = nodeFinding("prod", fmt.Sprintf("node-%05d", i))
	}
	e.notify(e.status(findings...))
	annotations := e.annotations()
	if len(annotations) != maxAnnotations+1 {
		t.Fatalf("%d annotations, want %d and one summary", len(annotations), maxAnnotations)
	}
	summary := annotations[maxAnnotations]
	if want := fmt.Sprintf("[WARN] %d more new findings on Kubernetes cluster prod were not annotated", nodes-maxAnnotations); !strings.HasPrefix(summary, want) {
		t.Errorf("summary annotation %q, want it to start with %q", summary, want)
	}
	if got := e.cs.CallCount("generateAlert"); got != maxAlerts+1 {
		t.Errorf("%d generateAlert calls, want %d and one summary", got, maxAlerts)
	}
	if got := e.counter(t, "cks_drift_annotations_capped_total"); got != nodes-maxAnnotations {
		t.Errorf("annotations capped = %v, want %d", got, nodes-maxAnnotations)
	}
	logs := e.logs.String()
	if got := strings.Count(logs, "level=WARN"); got != maxAnnotations+1 {
		t.Errorf("%d WARN lines, want %d and one for the rest:\n%.2000s", got, maxAnnotations, logs)
	}
	if want := fmt.Sprintf("more=%d", nodes-maxAnnotations); !strings.Contains(logs, want) {
		t.Errorf("no WARN line with %s", want)
	}

	before := len(e.cs.Calls())
	e.advance(testInterval)
	e.notify(e.status(findings...))
	for _, c := range e.cs.Calls()[before:] {
		if c.Command == "addAnnotation" || c.Command == "generateAlert" {
			t.Errorf("the next cycle called %s", c.Command)
		}
	}
}
