package notifier_test

import (
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestSameNamedClustersAreTold: two clusters named prod in two accounts, one named with a
// Cyrillic о, and one whose name holds a right-to-left override and a colour escape, each with
// one finding whose message is the same but for the cluster's name. With two alerts per cycle,
// every alert says whose cluster it is about, and the summary counts the other two by uuid with
// their names and owners: no two texts read alike, and none holds an unsafe character.
func TestSameNamedClustersAreTold(t *testing.T) {
	e := newNotifierEnv(t, notifier.Options{MaxAlertsPerCycle: 2})
	owners := []struct{ name, account, project string }{
		{"prod", "victim", ""},
		{"prod", "evil", ""},
		{"pr\u043ed", "evil", "web"}, // Cyrillic о
		{"prod\u202e\x1b[31mdoc", "evil", ""},
	}
	var statuses []collector.ClusterStatus
	refs := make(map[string]notifier.ClusterRef)
	for _, o := range owners {
		var c *cloudstacktest.Cluster
		e.cs.Update(func(w *cloudstacktest.World) {
			c = w.AddCluster(cloudstacktest.Cluster{Name: o.name, State: "Running", ZoneID: e.cluster.ZoneID, ZoneName: e.cluster.ZoneName,
				Account: o.account, Domain: "ROOT", Created: e.cluster.Created})
		})
		refs[c.ID] = notifier.ClusterRef{ID: c.ID, Name: o.name, Account: o.account, Project: o.project}
		cl := collector.Cluster{ID: c.ID, Name: o.name, ZoneID: c.ZoneID, Account: o.account, DomainID: "ROOT", Project: o.project}
		if o.project != "" {
			cl.ProjectID = "30000000-0000-4000-8000-000000000001"
		}
		statuses = append(statuses, collector.ClusterStatus{Cluster: cl, Checked: true, Nodes: collector.NodesRead(nil, nil)}.
			With(nodeFinding(o.name, "ghost")))
	}
	e.notify(statuses)

	alerts := e.alerts()
	if len(alerts) != 3 {
		t.Fatalf("%d alerts, want 2 and the summary", len(alerts))
	}
	var summary string
	alerted := make(map[string]bool)
	for _, a := range alerts {
		if strings.IndexFunc(a.Description, safetext.Unsafe) >= 0 {
			t.Errorf("alert %q holds an unsafe character", a.Description)
		}
		if strings.HasPrefix(a.Description, "2 more new findings") {
			summary = a.Description
			continue
		}
		found := false
		for id, ref := range refs {
			want := safetext.Line(nodeFinding(ref.Name, "ghost").Message, 0) + ". " + ref.Identity() + suffix
			if a.Description == want {
				found, alerted[id] = true, true
			}
		}
		if !found {
			t.Errorf("alert %q names none of the clusters by uuid and owner", a.Description)
		}
	}
	if summary == "" || len(alerted) != 2 {
		t.Fatalf("alerts %+v: want two clusters alerted and a summary", alerts)
	}
	for id, ref := range refs {
		if alerted[id] {
			if strings.Contains(summary, id) {
				t.Errorf("summary %q counts alerted cluster %s", summary, id)
			}
			continue
		}
		entry := id + " (" + safetext.Line(ref.Name, 0) + ", account " + ref.Account
		if ref.Project != "" {
			entry += ", project " + ref.Project
		}
		entry += "): 1"
		if !strings.Contains(summary, entry) {
			t.Errorf("summary %q lacks %q", summary, entry)
		}
	}
	if !strings.HasSuffix(summary, suffix) {
		t.Errorf("summary %q does not end with %q", summary, suffix)
	}
}
