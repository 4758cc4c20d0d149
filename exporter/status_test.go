package exporter

import (
	"encoding/json"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// hostileName is a cluster name an attacker with a CloudStack account could choose: markup, an
// attribute break-out, a javascript: URL and a terminal escape.
const hostileName = `"><script>alert(1)</script><img src=x onerror=alert(2)>javascript:alert(3)` + "\x1b[2J"

// statusWorld is a cloud with one healthy cluster, one with drift and a hostile name, one whose
// control node refuses SSH, one in the middle of a scale-up and one with a stopped kubelet.
func statusWorld(t *testing.T) (*env, []simulator.Cluster) {
	t.Helper()
	e, cs := newEnv(t,
		simulator.ClusterSpec{Name: "healthy"},
		simulator.ClusterSpec{Name: hostileName},
		simulator.ClusterSpec{Name: "dark"},
		simulator.ClusterSpec{Name: "growing", State: "Scaling"},
		simulator.ClusterSpec{Name: "ci-runners"},
	)
	if _, err := e.sim.DeleteMapRow(cs[1].ID, cs[1].VMs[2]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sim.StopKubelet(cs[4].ID, cs[4].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.sim.Node(cs[2].ID).SetMode(sshtest.Refuse)
	e.writeConfig("  interval: 1h\n", "  enabled: false\n")
	e.start()
	e.waitFor("ready", func() bool { code, _ := get(t, e.url+"/-/ready"); return code == http.StatusOK })
	return e, cs
}

func TestStatusPageEscapesAndSetsCSP(t *testing.T) {
	e, cs := statusWorld(t)
	for _, path := range []string{"/", "/clusters/" + url.PathEscape(cs[1].ID)} {
		resp, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != report.StatusCSP {
			t.Errorf("GET %s: Content-Security-Policy %q, want %q", path, got, report.StatusCSP)
		}
		if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, got)
		}
		for _, raw := range []string{"<script>", "<img src=x", "\x1b"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s: the hostile name is not escaped, page contains %q", path, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s: the escaped hostile name is missing:\n%s", path, body)
		}
	}
}

// statusWorldPage is what the status page of statusWorld shows, as the server writes it and as
// a browser serializes its DOM.
func statusWorldPage(cs []simulator.Cluster) []string {
	return []string{
		`<td id="count-clusters">5</td>`,
		`<td id="count-checked">4</td>`,
		`<td id="count-skipped">1</td>`,
		`<td id="count-unreachable" class="bad">1</td>`,
		`<td id="count-findings" class="bad">2</td>`,
		`<td data-label="Findings" id="kind-unmapped_vm" class="bad">1</td>`,
		`<td data-label="Findings" id="kind-vm_not_a_node" class="bad">1</td>`,
		`<span class="ok">succeeded</span>`,
		`<td data-label="Reason" class="reason">handshake</td>`,
		`<td data-label="State" class="state">Scaling</td>`,
		`<a href="/clusters/` + cs[4].ID + `">ci-runners</a>`,
		cs[1].VMs[2], // the unmapped VM
		cs[4].VMs[1], // the VM whose kubelet stopped
		"is running but is not a Kubernetes node",
	}
}

func TestStatusPageShowsWhatIsWrong(t *testing.T) {
	e, cs := statusWorld(t)
	_, body := get(t, e.url+"/")
	for _, want := range append(statusWorldPage(cs),
		`<td data-label="Findings" id="kind-node_without_vm" >0</td>`,
		`<a href="/clusters/`+cs[1].ID+`">`,
	) {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	// What is wrong comes first, the green "succeeded" of the last cycle after the findings.
	findings, unreachable := strings.Index(body, `<a href="#findings">2 findings</a> in 2 clusters`), strings.Index(body, `<a href="#unreachable">1 cluster unreachable</a>`)
	if first, succeeded := strings.Index(body, `<tr class="finding">`), strings.Index(body, `<span class="ok">succeeded</span>`); findings < 0 || unreachable < 0 || first < unreachable || succeeded < first {
		t.Errorf("the page does not lead with what is wrong: findings line at %d, unreachable line at %d, first finding at %d, the cycle's result at %d", findings, unreachable, first, succeeded)
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}

	_, body = get(t, e.url+"/clusters/"+cs[2].ID)
	if !strings.Contains(body, "not listed: handshake") || !strings.Contains(body, "Cluster dark") {
		t.Errorf("page of the unreachable cluster:\n%s", body)
	}
	if strings.Contains(body, `class="ok" id="no-findings"`) || !strings.Contains(body, "No drift found on the VM side; the node side was not compared") {
		t.Errorf("the unreachable cluster's page says no drift in green, or not that its node side was not compared:\n%s", body)
	}
	_, body = get(t, e.url+"/clusters/"+cs[3].ID)
	if strings.Contains(body, "No drift found") || !strings.Contains(body, `id="not-checked">Not checked for `) || !strings.Contains(body, "in state Scaling") {
		t.Errorf("the skipped cluster's page does not say it was not checked:\n%s", body)
	}
	if code, _ := get(t, e.url+"/clusters/no-such-id"); code != http.StatusNotFound {
		t.Errorf("page of an unknown cluster: %d, want 404", code)
	}
	_, body = get(t, e.url+"/?kind=node_without_vm")
	if !strings.Contains(body, `id="no-findings"`) || !strings.Contains(body, `id="filter"`) {
		t.Errorf("status page filtered by a kind without findings:\n%s", body)
	}
	_, body = get(t, e.url+"/?kind=%3Cb%3E")
	if !strings.Contains(body, `id="filter-error"`) || strings.Contains(body, "<b>") {
		t.Errorf("status page with a bad kind:\n%s", body)
	}
}

func TestFindingsFilters(t *testing.T) {
	e, cs := statusWorld(t)
	names := func(query string) []string {
		t.Helper()
		code, body := get(t, e.url+"/findings"+query)
		if code != http.StatusOK {
			t.Fatalf("/findings%s: %d %s", query, code, body)
		}
		var r report.Report
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		if r.Summary.Clusters != 5 || r.Summary.Findings != 2 || r.Summary.Unreachable != 1 || r.Summary.Skipped != 1 {
			t.Errorf("/findings%s: summary %+v does not count every cluster", query, r.Summary)
		}
		out := []string{}
		for _, c := range r.Clusters {
			out = append(out, c.Name)
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{hostileName, "ci-runners", "dark", "growing", "healthy"}},
		{"?problems=1", []string{hostileName, "ci-runners", "dark"}},
		{"?kind=vm_not_a_node", []string{"ci-runners"}},
		{"?kind=unmapped_vm", []string{hostileName}},
		{"?kind=node_without_vm", []string{}},
		{"?cluster=healthy", []string{"healthy"}},
		{"?cluster=" + cs[2].ID, []string{"dark"}},
		{"?cluster=healthy&problems=1", []string{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, names(tc.query)); diff != "" {
				t.Errorf("/findings%s (-want +got):\n%s", tc.query, diff)
			}
		})
	}
	for _, bad := range []string{"?kind=drift", "?problems=maybe"} {
		if code, body := get(t, e.url+"/findings"+bad); code != http.StatusBadRequest {
			t.Errorf("/findings%s: %d %s, want 400", bad, code, body)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
