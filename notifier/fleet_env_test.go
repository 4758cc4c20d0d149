package notifier_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// fleet is a notifier env whose fake holds many Running clusters, named c00, c01, ... in the
// order the notifier plans them; their findings are nodes named <cluster>-n<k>.
type fleet struct {
	*notifierEnv
	ids   []string          // by index
	names map[string]string // cluster id -> name
}

func newFleet(tb testing.TB, opts notifier.Options, clusters int) *fleet {
	tb.Helper()
	f := &fleet{notifierEnv: newNotifierEnv(tb, opts), names: make(map[string]string)}
	f.cs.Update(func(w *cloudstacktest.World) {
		for i := range clusters {
			c := w.AddCluster(cloudstacktest.Cluster{Name: fleetName(i), State: "Running", ZoneID: f.cluster.ZoneID, ZoneName: f.cluster.ZoneName,
				Account: "acme", Domain: "ROOT", Created: f.cluster.Created})
			f.ids = append(f.ids, c.ID)
			f.names[c.ID] = c.Name
		}
	})
	return f
}

func fleetName(i int) string { return fmt.Sprintf("c%02d", i) }

// statuses is every cluster of the fleet checked, cluster i with findings(i) new node names.
func (f *fleet) statuses(findings func(i int) int) []collector.ClusterStatus {
	out := make([]collector.ClusterStatus, len(f.ids))
	for i, id := range f.ids {
		st := collector.ClusterStatus{Cluster: collector.Cluster{ID: id, Name: fleetName(i), ZoneID: f.cluster.ZoneID},
			Checked: true, Nodes: collector.NodesRead(nil, nil)}
		for k := range findings(i) {
			st.Add(nodeFinding(fleetName(i), fmt.Sprintf("%s-n%d", fleetName(i), k)))
		}
		out[i] = st
	}
	return out
}

// findingName is a fleet finding's node name in a text.
var findingName = regexp.MustCompile(`\bc\d\d-n\d+\b`)

// writes is the fake's call log as the notifier's writes and look-ups, one label a call:
// "addAnnotation c03-n0", "addAnnotation resolution c00", "addAnnotation summary c00",
// "generateAlert c03-n0", "generateAlert summary", "archiveAlerts <type>", "listAnnotations
// c03". The calls that complete an alert (queryAsyncJobResult, listAlerts) are left out.
func (f *fleet) writes() []string {
	var out []string
	for _, c := range f.cs.Calls() {
		p := c.Params
		switch c.Command {
		case "addAnnotation":
			text, cluster := p.Get("annotation"), f.names[p.Get("entityid")]
			switch {
			case findingName.MatchString(text):
				out = append(out, "addAnnotation "+findingName.FindString(text))
			case strings.HasPrefix(text, "[INFO]"):
				out = append(out, "addAnnotation resolution "+cluster)
			default:
				out = append(out, "addAnnotation summary "+cluster)
			}
		case "generateAlert":
			if p.Get("type") == strconv.Itoa(f.opts.Types.Max) {
				out = append(out, "generateAlert summary")
			} else {
				out = append(out, "generateAlert "+findingName.FindString(p.Get("description")))
			}
		case "archiveAlerts":
			out = append(out, "archiveAlerts "+p.Get("type"))
		case "listAnnotations":
			out = append(out, "listAnnotations "+f.names[p.Get("entityid")])
		}
	}
	return out
}

// annotationsByCluster counts the annotations CloudStack holds, by cluster name.
func (f *fleet) annotationsByCluster() map[string]int {
	out := make(map[string]int)
	f.cs.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Annotations {
			out[f.names[a.EntityID]]++
		}
	})
	return out
}

// checkNoDoubles fails when CloudStack holds an annotation or an alert twice.
func (f *fleet) checkNoDoubles(tb testing.TB) {
	tb.Helper()
	seen := make(map[string]bool)
	for _, a := range f.annotations() {
		if seen[a] {
			tb.Errorf("annotation made twice: %s", a)
		}
		seen[a] = true
	}
	for _, a := range f.alerts() {
		if seen[a.Description] {
			tb.Errorf("alert raised twice: %s", a.Description)
		}
		seen[a.Description] = true
	}
}

// alertType is the type of the alert CloudStack holds for a fleet finding.
func (f *fleet) alertType(tb testing.TB, node string) int {
	tb.Helper()
	for _, a := range f.alerts() {
		if findingName.FindString(a.Description) == node {
			return a.Type
		}
	}
	tb.Fatalf("no alert for %s", node)
	return 0
}

// await polls cond until it holds, failing the test after a minute.
func await(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
