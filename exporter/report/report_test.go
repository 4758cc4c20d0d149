package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

const (
	clusterUUID = "6f1c0e52-8b0e-4c55-9d1e-2a6c1f0b7a10"
	vmUUID      = "0b6f7c1e-2d3a-4e5f-8a9b-c0d1e2f3a4b5"
)

// TestNewAddsWhatTheOperatorAsks: a report made at a time gives each finding its age, its
// runbook and, for a VM that exists, its page in CloudStack's UI; a skipped cluster says why and
// for how long; the history of resolved findings goes to its cluster.
func TestNewAddsWhatTheOperatorAsks(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	unmapped := collector.Finding{Kind: collector.KindUnmappedVM, VMID: vmUUID, VMName: "prod-node-1", FirstSeen: now.Add(-90 * time.Minute)}
	expunged := collector.Finding{Kind: collector.KindMappedVMExpunged, VMID: vmUUID, VMName: "prod-node-2", FirstSeen: now.Add(-time.Minute)}
	missing := collector.Finding{Kind: collector.KindMappedVMMissing, VMID: "999999", FirstSeen: now}
	snap := &collector.Snapshot{
		Clusters: []collector.ClusterStatus{
			collector.ClusterStatus{Cluster: collector.Cluster{ID: clusterUUID, Name: "prod", State: "Running"}, Checked: true, Nodes: collector.NodesRead(nil, nil)}.
				With(unmapped, expunged, missing),
			collector.ClusterStatus{Cluster: collector.Cluster{ID: "c2", Name: "busy", State: "Scaling"}, StateSince: now.Add(-2 * time.Hour)}.
				With(collector.Finding{Kind: collector.KindStuckInOperation, Message: "stuck", FirstSeen: now.Add(-time.Hour)}),
			{Cluster: collector.Cluster{ID: "c3", Name: "ext", State: "Running", ClusterType: "ExternalManaged"}, StateSince: now.Add(-time.Hour)},
		},
		Resolved: []collector.Resolved{
			{ClusterID: clusterUUID, ClusterName: "prod", Finding: collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: "ghost"}, ResolvedAt: now.Add(-time.Minute)},
			{ClusterID: "c2", ClusterName: "busy", Finding: collector.Finding{Kind: collector.KindVMNotANode, VMName: "busy-node-1"}, ResolvedAt: now.Add(-3 * time.Hour)},
		},
	}
	r := New(snap, Context{Now: now, UIURL: "https://cloud.example.com/client/"})
	prod, busy, ext := r.Clusters[0], r.Clusters[1], r.Clusters[2]

	if got, want := prod.CloudStackURL, "https://cloud.example.com/client/#/kubernetes/"+clusterUUID; got != want {
		t.Errorf("cluster link %q, want %q", got, want)
	}
	type row struct {
		Age     int64
		Runbook string
		VMLink  string
	}
	var got []row
	for _, f := range prod.Findings {
		got = append(got, row{*f.AgeSeconds, f.RunbookURL, f.CloudStackURL})
	}
	want := []row{
		{5400, rules.RunbookBaseURL + "#unmapped_vm", "https://cloud.example.com/client/#/vm/" + vmUUID},
		{60, rules.RunbookBaseURL + "#mapped_vm_expunged", ""}, // expunged: no page to show
		{0, rules.RunbookBaseURL + "#mapped_vm_missing", ""},   // a map row's number, not a uuid
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if busy.SkipReason != "Scaling" || busy.SkippedSeconds == nil || *busy.SkippedSeconds != 7200 {
		t.Errorf("skipped cluster: reason %q for %v s", busy.SkipReason, busy.SkippedSeconds)
	}
	if len(busy.Findings) != 1 || busy.Findings[0].Kind != collector.KindStuckInOperation || busy.Findings[0].RunbookURL != rules.RunbookBaseURL+"#cksclusterstuckinoperation" {
		t.Errorf("the stuck cluster's findings: %+v", busy.Findings)
	}
	if ext.SkipReason != "ExternalManaged" {
		t.Errorf("ExternalManaged cluster: skip reason %q", ext.SkipReason)
	}
	if prod.SkippedSeconds != nil || prod.SkipReason != "" {
		t.Errorf("checked cluster: skipped for %v s, reason %q", *prod.SkippedSeconds, prod.SkipReason)
	}
	if len(prod.Resolved) != 1 || prod.Resolved[0].VMName != "ghost" || len(busy.Resolved) != 1 || ext.Resolved != nil {
		t.Errorf("resolved by cluster: prod %v, busy %v, ext %v", prod.Resolved, busy.Resolved, ext.Resolved)
	}

	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"generated":"2026-12-02T01:00:00Z"`, `"age_seconds":5400`, `"state_since":"2026-12-01T23:00:00Z"`,
		`"skipped_seconds":7200`, `"skip_reason":"Scaling"`, `"recently_resolved":[{"kind":"node_without_vm"`, `"runbook_url":"` + rules.RunbookBaseURL + `#unmapped_vm"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("JSON lacks %s:\n%s", want, doc)
		}
	}
	if strings.Contains(string(doc), `"announcement"`) || strings.Contains(string(doc), `"notifier_mode"`) {
		t.Errorf("a report without the notifier's view says something of announcements:\n%s", doc)
	}
}

// TestNewWithoutContext: the zero Context (--once's log line, the cycle summary) adds no age
// and no link.
func TestNewWithoutContext(t *testing.T) {
	snap := &collector.Snapshot{Clusters: []collector.ClusterStatus{collector.ClusterStatus{Cluster: collector.Cluster{ID: clusterUUID, Name: "prod"}, Checked: true}.
		With(collector.Finding{Kind: collector.KindUnmappedVM, VMID: vmUUID, FirstSeen: time.Now()})}}
	r := New(snap, Context{})
	f := r.Clusters[0].Findings[0]
	if r.Generated != nil || f.AgeSeconds != nil || f.CloudStackURL != "" || r.Clusters[0].CloudStackURL != "" {
		t.Errorf("zero context: generated %v, age %v, links %q %q", r.Generated, f.AgeSeconds, f.CloudStackURL, r.Clusters[0].CloudStackURL)
	}
}

// TestUILinksTakeOnlyUUIDs: a tenant chooses names, never uuids; nothing else becomes a link.
func TestUILinksTakeOnlyUUIDs(t *testing.T) {
	for _, id := range []string{"", "999999", "../admin", "x\" onclick=\"y", vmUUID + "/../x"} {
		if got := uiURL("https://cloud.example.com/client/", "vm", id); got != "" {
			t.Errorf("uiURL of %q = %q, want none", id, got)
		}
	}
	if got := uiURL("https://portal.example.com/ui", "vm", vmUUID); got != "https://portal.example.com/ui/#/vm/"+vmUUID {
		t.Errorf("a base without its slash: %q", got)
	}
}

// TestStateSince: a skipped cluster says since when it has been in its state, so since when it
// has been skipped; a cluster the exporter knows no time of leaves the key out.
func TestStateSince(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	r := New(&collector.Snapshot{Clusters: []collector.ClusterStatus{
		{Cluster: collector.Cluster{ID: "k1", Name: "busy", State: "Scaling"}, StateSince: since},
		{Cluster: collector.Cluster{ID: "k2", Name: "fresh", State: "Running"}, Checked: true},
	}}, Context{})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"state_since": "2026-12-02T08:00:00Z"`) {
		t.Errorf("no state_since of the skipped cluster in\n%s", buf.String())
	}
	if n := strings.Count(buf.String(), `"state_since"`); n != 1 {
		t.Errorf("%d state_since keys, want 1 (none without a time)", n)
	}
}
