//go:build unix

package exporter

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/browsertest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/golden"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

// Long names as tenants choose them: CloudStack cuts a node's name prefix to 43 characters, so
// VM names reach about 60.
const (
	layoutName1 = "payments-production-eu-west-1-blue-kubernetes"
	layoutName2 = "analytics-batch-processing-cluster-with-a-long-name"
)

// layoutWorld is a cloud whose names are long: an unmapped VM and a VM that is not a node, both
// announced; a finding that resolved; a cluster skipped while scaling; one whose control node
// refuses SSH; and the hostile name.
func layoutWorld(t *testing.T) (*env, []simulator.Cluster) {
	t.Helper()
	e, cs := newEnv(t,
		simulator.ClusterSpec{Name: layoutName1},
		simulator.ClusterSpec{Name: layoutName2},
		simulator.ClusterSpec{Name: "platform-shared-services-staging-scaling", State: "Scaling"},
		simulator.ClusterSpec{Name: "observability-stack-unreachable-control"},
		simulator.ClusterSpec{Name: hostileName},
	)
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.waitFor("ready", func() bool { code, _ := get(t, e.url+"/-/ready"); return code == http.StatusOK })
	restart, err := e.sim.StopKubelet(cs[1].ID, cs[1].VMs[2])
	if err != nil {
		t.Fatal(err)
	}
	e.checkNow(1)
	restart()
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sim.StopKubelet(cs[1].ID, cs[1].VMs[1]); err != nil {
		t.Fatal(err)
	}
	e.sim.Node(cs[3].ID).SetMode(sshtest.Refuse)
	e.checkNow(1)
	return e, cs
}

// measureJS returns, from the laid-out page, the width of the viewport and of the document, each
// name with its width and the number of lines it is broken into, each column heading's lines,
// and the facts the page must show: ages, announcements, runbook and CloudStack links, history.
const measureJS = `(() => {
  const lines = el => {
    const r = document.createRange(); r.selectNodeContents(el);
    return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size;
  };
  const all = (sel, f) => [...document.querySelectorAll(sel)].map(f);
  return {
    viewport: document.documentElement.clientWidth,
    scroll: document.documentElement.scrollWidth,
    names: all('.cluster-name a, td.cluster a, .vm .name', el => ({text: el.textContent, width: el.getBoundingClientRect().width, right: el.getBoundingClientRect().right, lines: lines(el)})),
    headings: all('thead th', el => ({text: el.textContent, lines: lines(el)})),
    ages: all('#findings .seen .age', el => el.textContent),
    announced: all('#findings .announced .part', el => el.textContent),
    runbooks: all('#findings a.runbook', el => el.href),
    cloudstack: all('a.ext', el => el.href),
    resolved: all('#resolved tr.resolved', el => el.innerText),
    skipped: all('#skipped tr.skipped .seen', el => el.textContent),
    notChecked: (document.querySelector('#not-checked') || {}).textContent || '',
    clusterChecked: (document.querySelector('#cluster-checked') || {}).textContent || '',
    noDrift: !!document.querySelector('p.ok#no-findings'),
    firstFinding: (el => el ? el.getBoundingClientRect().top + window.scrollY : -1)(document.querySelector('#findings tr.finding')),
  };
})()`

type measured struct {
	Viewport, Scroll float64
	Names            []struct {
		Text         string
		Width, Right float64
		Lines        int
	}
	Headings []struct {
		Text  string
		Lines int
	}
	Ages, Announced, Runbooks, CloudStack, Resolved, Skipped []string
	NotChecked, ClusterChecked                               string
	NoDrift                                                  bool
	FirstFinding                                             float64 // the top of the first finding's row in the page; -1: none
}

// TestStatusPageLayoutInBrowser lays the status page of layoutWorld out in headless Chromium at
// 1400 px and at a phone's 390 px, measures it through the DevTools protocol, and keeps both
// screenshots (go test -run TestStatusPageLayoutInBrowser ./exporter/ -update writes them to
// docs/status-page.png and docs/status-page-phone.png). At 1400 px no name wraps at all, nor
// does a column heading; at 390 px nothing is wider than the screen and a name that must wrap
// has the card's width. The page shows each finding's age, its announcement, its runbook and
// CloudStack links, the resolved history, and how long the skipped cluster has gone unchecked,
// which its own page says instead of "No drift found". The page leads with what is wrong: the
// first finding starts within the first screen, also on the phone's 390×844.
func TestStatusPageLayoutInBrowser(t *testing.T) {
	bin := tooltest.Require(t, "chromium", "apt-get install chromium (.ci/run installs it)")
	e, cs := layoutWorld(t)
	b := browsertest.Start(t, bin)
	ui := config.DerivedUIURL(e.sim.CloudStack.Endpoint())
	vms := []string{vmID(e, cs[0].VMs[1]), vmID(e, cs[1].VMs[1])}

	for _, tc := range []struct {
		name          string
		width, height int
		shot          string
	}{
		{"desktop", 1400, 900, "status-page.png"},
		{"phone", 390, 844, "status-page-phone.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := b.Open(e.url+"/", tc.width, tc.height, tc.width < 700)
			if err != nil {
				t.Fatal(err)
			}
			var m measured
			if err := page.Eval(measureJS, &m); err != nil {
				t.Fatal(err)
			}
			if m.Viewport != float64(tc.width) || m.Scroll > m.Viewport {
				t.Errorf("viewport %v, document %v wide: want %d and nothing wider", m.Viewport, m.Scroll, tc.width)
			}
			want := map[string]bool{layoutName1: false, layoutName2: false, cs[0].VMs[1]: false, cs[1].VMs[1]: false}
			for _, n := range m.Names {
				if _, ok := want[n.Text]; ok {
					want[n.Text] = true
				}
				switch {
				case n.Right > m.Viewport+0.5:
					t.Errorf("%q ends at %v, past the screen's %v", n.Text, n.Right, m.Viewport)
				case tc.width >= 1400 && n.Lines != 1:
					t.Errorf("%q is broken into %d lines at %d px (%v px wide)", n.Text, n.Lines, tc.width, n.Width)
				case n.Lines > 1 && n.Width < 0.6*m.Viewport:
					t.Errorf("%q is squeezed into %v px and %d lines at %d px", n.Text, n.Width, n.Lines, tc.width)
				}
			}
			for name, seen := range want {
				if !seen {
					t.Errorf("the page does not show %q whole", name)
				}
			}
			if tc.width >= 1400 {
				for _, h := range m.Headings {
					if h.Lines != 1 {
						t.Errorf("column heading %q is broken into %d lines", h.Text, h.Lines)
					}
				}
			}
			checkPageFacts(t, m, cs, vms, ui)
			if m.FirstFinding < 0 || m.FirstFinding >= float64(tc.height) {
				t.Errorf("the first finding starts %v px down the page, not within the first screen of %d px", m.FirstFinding, tc.height)
			}

			shot := filepath.Join(artifactDir(t), tc.shot)
			if err := page.Screenshot(shot); err != nil {
				t.Fatal(err)
			}
			if golden.Updating() {
				png, err := os.ReadFile(shot)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join("..", "docs", tc.shot), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			widest := 0
			for i, n := range m.Names {
				if n.Width > m.Names[widest].Width {
					widest = i
				}
			}
			if len(m.Names) > 0 {
				n := m.Names[widest]
				t.Logf("at %d px: document %v px wide, %d names, the widest %q %.0f px on %d line(s), the first finding %.0f px down", tc.width, m.Scroll, len(m.Names), n.Text, n.Width, n.Lines, m.FirstFinding)
			}
			t.Logf("screenshot at %d px: %s", tc.width, shot)
			if t.Failed() {
				t.Logf("measured: %+v", m)
			}
		})
	}

	page, err := b.Open(e.url+"/clusters/"+cs[2].ID, 1400, 900, false)
	if err != nil {
		t.Fatal(err)
	}
	var m measured
	if err := page.Eval(measureJS, &m); err != nil {
		t.Fatal(err)
	}
	if m.NoDrift || !strings.Contains(m.NotChecked, "Not checked for") || !strings.Contains(m.NotChecked, "state Scaling") ||
		!strings.Contains(m.ClusterChecked, "not checked for") {
		t.Errorf("the skipped cluster's page: no drift %v, %q, %q", m.NoDrift, m.NotChecked, m.ClusterChecked)
	}
	if want := ui + "#/kubernetes/" + cs[2].ID; !contains(m.CloudStack, want) {
		t.Errorf("the skipped cluster's page links %q, not %s", m.CloudStack, want)
	}
}

// checkPageFacts checks what the front page of layoutWorld says beyond its layout.
func checkPageFacts(t *testing.T, m measured, cs []simulator.Cluster, vms []string, ui string) {
	t.Helper()
	if len(m.Ages) != 2 || !strings.HasSuffix(m.Ages[0], "s") {
		t.Errorf("ages of the findings: %q, want two durations", m.Ages)
	}
	if strings.Count(strings.Join(m.Announced, "\n"), "sent ") != 4 || !contains(m.Announced, "annotation: sent ") || !contains(m.Announced, "alert: sent ") {
		t.Errorf("announcements: %q, want the annotation and the alert of both findings sent, with when", m.Announced)
	}
	for _, kind := range []string{"unmapped_vm", "vm_not_a_node"} {
		if !contains(m.Runbooks, rules.RunbookBaseURL+"#"+kind) {
			t.Errorf("runbook links %q lack %s", m.Runbooks, kind)
		}
	}
	for _, want := range []string{ui + "#/kubernetes/" + cs[0].ID, ui + "#/vm/" + vms[0], ui + "#/vm/" + vms[1]} {
		if !contains(m.CloudStack, want) {
			t.Errorf("CloudStack links %q lack %s", m.CloudStack, want)
		}
	}
	if len(m.Resolved) != 1 || !strings.Contains(m.Resolved[0], cs[1].VMs[2]) || !strings.Contains(m.Resolved[0], "vm_not_a_node") || !strings.Contains(m.Resolved[0], " ago") {
		t.Errorf("recently resolved: %q, want the restarted kubelet's finding with its age", m.Resolved)
	}
	if len(m.Skipped) != 1 || !strings.Contains(m.Skipped[0], "since ") {
		t.Errorf("skipped: %q, want how long and since when", m.Skipped)
	}
	if m.NoDrift {
		t.Error(`the page says "No drift found" in green`)
	}
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// vmID returns the uuid of the simulator's VM with the name.
func vmID(e *env, name string) string {
	var id string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, vm := range w.VMs {
			if vm.Name == name {
				id = vm.ID
			}
		}
	})
	return id
}
