package report

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestStatusPageTimesCarryTheirAge renders the front page of a snapshot with an accepted finding,
// a skipped cluster and a resolved finding: every time on it comes with how long ago (or, for an
// accept rule's until, shown as written, how long until it ends), and with nothing checked it never
// says no drift in green.
func TestStatusPageTimesCarryTheirAge(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	accepted := collector.AcceptedFinding{
		Finding:    collector.Finding{Kind: collector.KindUnmappedVM, VMID: vmUUID, VMName: "cache01", FirstSeen: now.Add(-3 * time.Hour)},
		Acceptance: collector.Acceptance{Reason: "a cache", Until: "2026-12-02", Ends: now.Add(23 * time.Hour)},
	}
	snap := &collector.Snapshot{Start: now.Add(-time.Minute), End: now.Add(-time.Minute), Success: true, Enabled: true, LastSuccess: now.Add(-time.Minute),
		Clusters: []collector.ClusterStatus{
			{Cluster: collector.Cluster{ID: clusterUUID, Name: "busy", State: "Scaling", ClusterType: collector.CloudManaged},
				StateSince: now.Add(-90 * time.Minute), Accepted: []collector.AcceptedFinding{accepted}},
		},
		Resolved: []collector.Resolved{{ClusterID: clusterUUID, ClusterName: "busy", ResolvedAt: now.Add(-10 * time.Minute),
			Finding: collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: "ghost", FirstSeen: now.Add(-70 * time.Minute)}}},
	}
	body := renderIndex(t, snap, now)
	for _, want := range []string{
		"2026-12-02T00:59:00Z (1m0s ago)",                      // the cycle
		`<span class="age">3h 0m ago</span>`,                   // the accepted finding, open since
		`2026-12-02 <span class="age">(ends in 23h 0m)</span>`, // its rule's until as written, and when it ends
		`<span class="age">1h 30m</span>`,                      // not checked for
		`<span class="age">10m 0s ago</span>`,                  // resolved
		`<span class="age">1h 0m</span>`,                       // was open for
		"No drift found, but no cluster was checked",           // not the green "No drift found."
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, `class="ok" id="no-findings"`) {
		t.Error(`nothing was checked, yet the page says "No drift found" in green`)
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}
}

// TestStatusPageLeadsWithWhatIsWrong: the front page opens with what is wrong (a failed cycle with
// its error, the findings, the unreachable clusters), then the findings; the last cycle's facts
// and the counts come after them. A page with nothing wrong has no such lines.
func TestStatusPageLeadsWithWhatIsWrong(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	unmapped := collector.Finding{Kind: collector.KindUnmappedVM, VMID: vmUUID, VMName: "cache01", FirstSeen: now.Add(-time.Hour)}
	cluster := collector.Cluster{ID: clusterUUID, Name: "busy", State: "Running", ClusterType: collector.CloudManaged}
	failed := &collector.Snapshot{Start: now.Add(-time.Minute), End: now.Add(-time.Minute), Enabled: true, LastSuccess: now.Add(-time.Hour),
		Error: "listVirtualMachines: CloudStack API error 530", Clusters: []collector.ClusterStatus{
			collector.ClusterStatus{Cluster: cluster, Checked: true, Nodes: collector.NodeList{Err: "timeout"}}.With(unmapped),
		}}
	body := renderIndex(t, failed, now)
	order := []string{
		`id="verdict-failed">The last cycle failed: listVirtualMachines: CloudStack API error 530.`,
		`id="verdict-findings"><a href="#findings">1 finding</a> in 1 cluster</li>`,
		`id="verdict-unreachable"><a href="#unreachable">1 cluster unreachable</a>`,
		`<tr class="finding">`,
		`id="cycle-result"`,
		`id="count-clusters"`,
	}
	last := -1
	for _, want := range order {
		i := strings.Index(body, want)
		if i < 0 || i < last {
			t.Errorf("%q is at %d, want it after %d", want, i, last)
		}
		last = i
	}

	healthy := &collector.Snapshot{Start: now.Add(-time.Minute), End: now.Add(-time.Minute), Success: true, Enabled: true, LastSuccess: now.Add(-time.Minute),
		Clusters: []collector.ClusterStatus{{Cluster: cluster, Checked: true, Nodes: collector.NodesRead(nil, nil)}}}
	if body := renderIndex(t, healthy, now); strings.Contains(body, `id="verdict"`) || !strings.Contains(body, `<p class="ok" id="no-findings">`) {
		t.Error("a healthy cloud's page has lines of what is wrong, or does not say no drift was found")
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}
}

// renderIndex renders the front page of snap at now.
func renderIndex(t *testing.T, snap *collector.Snapshot, now time.Time) string {
	t.Helper()
	r := New(snap, Context{Now: now}).Printable()
	page := NewStatusPage(r, "test", "/metrics", now)
	page.Fill(r.Clusters)
	rec := httptest.NewRecorder()
	if err := Render(rec, 200, "index", page); err != nil {
		t.Fatal(err)
	}
	return rec.Body.String()
}
