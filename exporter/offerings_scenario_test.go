package exporter

// offering_missing through the whole exporter and both inventory sources: a cluster's service
// offering is deleted; the finding appears and is announced once, is kept while the offerings
// cannot be read (the cluster moved to a new offering meanwhile: neither resolved nor announced
// again, while the rest of the cycle goes on), and is resolved with the cluster side's message
// once they are read again.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// offeringsAgain is the cluster side's resolution of the cluster "test".
const offeringsAgain = "The service offerings of Kubernetes cluster test are active in CloudStack again"

// TestOfferingMissingThroughTheAPI: the offerings cannot be read while listServiceOfferings is
// refused (432, a role without it); the other lists are read.
func TestOfferingMissingThroughTheAPI(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 1})
	e.writeConfig("  interval: 1h\n", "")
	e.start()
	e.offeringEpisode(cs[0], nil,
		func() { e.sim.CloudStack.SetFault("listServiceOfferings", cloudstacktest.Fault{Status: 432}) },
		func() { e.sim.CloudStack.ClearFaults() })
}

// TestOfferingMissingFromTheDatabase: the offerings cannot be read while the exporter's account
// has no SELECT on service_offering; the other tables are read.
func TestOfferingMissingFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "test", Workers: 1})
	d, _, _ := e.startOnDatabase(db, "  interval: 1h\n")
	grant := func(stmt string) func() {
		return func() {
			if _, err := d.Admin.Exec(fmt.Sprintf(stmt, d.Name, d.Name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.offeringEpisode(cs[0], func() { e.reload(d) },
		grant("REVOKE SELECT ON %s.service_offering FROM '%s'@'%%'"),
		grant("GRANT SELECT ON %s.service_offering TO '%s'@'%%'"))
}

// offeringEpisode walks offering_missing through its episode on a started exporter whose cycles
// run only when asked for: load, when not nil, hands the cloud's model to the inventory source;
// hide and show make the offerings unreadable and readable.
func (e *env) offeringEpisode(c simulator.Cluster, load, hide, show func()) {
	e.t.Helper()
	loaded := e.baseline(load)

	replace, err := e.sim.RemoveServiceOffering(c.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	loaded()
	want := []string{"test offering_missing "}
	e.checkNow(3)
	if f := e.findings(); !slices.Equal(f, want) {
		e.t.Fatalf("findings: %q, want %q", f, want)
	}
	msg := "of its control and worker nodes is removed in CloudStack: CKS's next scale of the cluster fails"
	written := e.writes()
	if count(written, "addAnnotation [WARN] Kubernetes cluster test: the service offering small (", msg) != 1 ||
		count(written, "generateAlert Kubernetes cluster test: the service offering small (", msg) != 1 || len(written) != 2 {
		e.t.Fatalf("writes: %q, want one [WARN] annotation and one alert with %q", written, msg)
	}

	// The offerings cannot be read while the cluster moves to an active offering: the cycles
	// succeed, the finding is kept and nothing is announced.
	hide()
	replace()
	loaded()
	e.checkNow(2)
	if m := e.metrics(); m["cks_drift_up"] != 1 {
		e.t.Fatalf("the offerings unreadable: cks_drift_up %v, want the rest read", m["cks_drift_up"])
	}
	// Read again: resolved once, with the cluster side's message, and the alert archived.
	e.keptThenResolved(want, written, show, offeringsAgain)
}
