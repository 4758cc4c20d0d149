package exporter

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

const msgAmbiguous = "An accept rule names a cluster by a name that several clusters have and accepts nothing; name the cluster by its uuid"

// TestAcceptedThenTheRuleRemoved: a finding an accept rule names is shown as accepted (status in
// /findings with its reason and until, cks_drift_accepted_findings) and never announced; once
// the rule is removed and the configuration reloaded, the finding is new and announced once;
// accepted again, its alert is archived and its side does not "match again". A rule that names
// a cluster by a name two tenants' clusters have accepts neither of them.
func TestAcceptedThenTheRuleRemoved(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "solo"},
		simulator.ClusterSpec{Name: "farm", Account: "alice"}, simulator.ClusterSpec{Name: "farm", Account: "mallory"})
	solo, alice, mallory := cs[0], cs[1], cs[2]
	// Mallory's cluster has the same name as alice's, and its VMs the same names.
	for _, c := range []simulator.Cluster{solo, alice} {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[1]); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfig("  interval: 1h\n", "")
	base := e.config()
	rules := fmt.Sprintf(`accept:
  - cluster: solo
    kind: unmapped_vm
    vm: %s
    reason: "kept on purpose"
    until: 2999-12-31
  - cluster: farm
    kind: unmapped_vm
    vm: %s
    reason: "alice's farm only"
`, solo.VMs[1], alice.VMs[1])
	e.setConfig(base + rules)
	mark := e.logs.mark()
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	e.checkNow(1)

	wantActive := []string{"farm unmapped_vm " + alice.VMs[1]}
	if f := e.findings(); !slices.Equal(f, wantActive) {
		t.Fatalf("active findings %q, want %q: solo's is accepted, alice's is not (its cluster's name is mallory's too)", f, wantActive)
	}
	m := e.metrics()
	if got := m[fmt.Sprintf(`cks_drift_accepted_findings{cluster_id=%q,cluster_name="solo",kind="unmapped_vm"}`, solo.ID)]; got != 1 {
		t.Errorf("cks_drift_accepted_findings of solo = %v, want 1; accepted series: %v", got, matching(m, `^cks_drift_accepted_findings`))
	}
	if m[`cks_drift_accept_rules{state="matched"}`] != 1 || m[`cks_drift_accept_rules{state="ambiguous"}`] != 1 {
		t.Errorf("accept rules: %v, want one matched and one ambiguous", matching(m, `^cks_drift_accept_rules`))
	}
	if got := m[fmt.Sprintf(`cks_drift_findings{cluster_id=%q,cluster_name="solo",kind="unmapped_vm"}`, solo.ID)]; got != 0 {
		t.Errorf("cks_drift_findings of solo = %v, want 0: an accepted finding is not drift", got)
	}
	report, _ := e.findingsReport()
	for _, c := range report.Clusters {
		if c.ID != solo.ID {
			continue
		}
		if len(c.Findings) != 0 || len(c.Accepted) != 1 || c.Accepted[0].Reason != "kept on purpose" ||
			c.Accepted[0].Until != "2999-12-31" || !c.Accepted[0].Ends.Equal(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)) ||
			c.Accepted[0].VMName != solo.VMs[1] {
			t.Errorf("/findings of solo: findings %+v, accepted %+v", c.Findings, c.Accepted)
		}
	}
	if report.Summary.Accepted != 1 {
		t.Errorf("summary: %d accepted, want 1", report.Summary.Accepted)
	}
	if _, page := get(t, e.url+"/"); !strings.Contains(page, "kept on purpose") || !strings.Contains(page, `<td data-label="Until" class="until">2999-12-31 <span`) {
		t.Errorf("the status page does not show the accepted finding's reason and its until as written")
	}
	w := e.writes()
	if count(w, solo.VMs[1]) != 0 || count(w, "addAnnotation [WARN]") != 1 || count(w, "generateAlert") != 1 {
		t.Fatalf("writes: %q, want alice's finding announced and solo's not", w)
	}
	amb := e.logged(mark, slog.LevelWarn, msgAmbiguous)
	if len(amb) != 1 || !strings.Contains(amb[0].Attrs["cluster_ids"], alice.ID) || !strings.Contains(amb[0].Attrs["cluster_ids"], mallory.ID) {
		t.Errorf("ambiguous rule logged %+v, want once with both clusters' uuids", amb)
	}
	for _, l := range e.logs.since(mark, slog.LevelWarn) {
		if strings.Contains(l.Msg, solo.VMs[1]) {
			t.Errorf("the accepted finding was logged as new: %q", l.Msg)
		}
	}

	// The rule removed: the reload checks at once, and the finding is announced once.
	cycles := e.cycles()
	e.setConfig(base)
	e.postReload()
	e.waitFor("the cycle of the reload", func() bool { return e.cycles() > cycles })
	e.checkNow(1)
	if f := e.findings(); !slices.Contains(f, "solo unmapped_vm "+solo.VMs[1]) {
		t.Fatalf("findings after the rule was removed: %q", f)
	}
	w = e.writes()
	if count(w, "addAnnotation [WARN] VM "+solo.VMs[1]) != 1 || count(w, "generateAlert VM "+solo.VMs[1]) != 1 {
		t.Fatalf("writes after the rule was removed: %q, want solo's finding announced once", w)
	}
	if len(e.logged(mark, slog.LevelWarn, msgAmbiguous)) != 1 {
		t.Errorf("the ambiguous rule was logged again after it was removed")
	}

	// Accepted again: its alert is archived, and nothing says the VM map matches again.
	e.setConfig(base + rules)
	cycles = e.cycles()
	e.postReload()
	e.waitFor("the cycle of the reload", func() bool { return e.cycles() > cycles })
	e.checkNow(1)
	if f := e.findings(); !slices.Equal(f, wantActive) {
		t.Fatalf("findings accepted again: %q, want %q", f, wantActive)
	}
	if a := e.storedAlerts(); count(a, solo.VMs[1]) != 0 || len(a) != 1 {
		t.Errorf("stored alerts %q: want solo's archived, alice's open", a)
	}
	if n := count(e.writes(), "addAnnotation [INFO]"); n != 0 {
		t.Errorf("%d resolution annotations: the VM map of solo does not match again while its drift is only accepted", n)
	}
}
