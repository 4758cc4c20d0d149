package exporter

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestPreflightDatabaseGrants: with inventory.source database, --preflight checks the account's
// grants. The documented grants pass; without SELECT on vm_instance_details (the VM details
// table of CloudStack 4.21, the schema the simulated cloud has) the grants line and the inventory
// line fail, each naming the table and the statements that grant it. Without SELECT on a table
// only the network side reads, the grants line fails and the inventory line passes.
func TestPreflightDatabaseGrants(t *testing.T) {
	db := mariadbtest.Start(t)
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "alpha"})
	d, _, _ := e.startOnDatabase(db, "")
	run := func() (int, string) {
		var out bytes.Buffer
		code := Preflight(context.Background(), e.cfg, nil, &out, slog.New(slog.DiscardHandler))
		return code, out.String()
	}
	code, out := run()
	if code != 0 || !strings.Contains(out, "ok    database grants: SELECT on every table read, and on both names of the VM details table\n") ||
		!strings.Contains(out, "ok    inventory: 1 clusters, ") {
		t.Fatalf("the documented grants: exit %d\n%s", code, out)
	}

	grantee := fmt.Sprintf("'%s'@'%%'", d.Name)
	if _, err := d.Admin.Exec(fmt.Sprintf("REVOKE SELECT ON `%s`.`vm_instance_details` FROM %s", d.Name, grantee)); err != nil {
		t.Fatal(err)
	}
	code, out = run()
	t.Logf("--preflight without SELECT on vm_instance_details:\n%s", out)
	fix := fmt.Sprintf("GRANT SELECT, CREATE ON %s.vm_instance_details TO %s; REVOKE CREATE ON %s.vm_instance_details FROM %s;", d.Name, grantee, d.Name, grantee)
	grants, inventory := line(out, "FAIL  database grants: "), line(out, "FAIL  inventory: ")
	if code != 1 || !strings.Contains(grants, "may not read vm_instance_details") || !strings.Contains(grants, fix) ||
		!strings.Contains(inventory, "may not read vm_instance_details") || !strings.Contains(inventory, fix) {
		t.Fatalf("a missing grant: exit %d; want both lines to name vm_instance_details and %q\n%s", code, fix, out)
	}

	// An account granted before the database source read the network side: the inventory is
	// read, the grants line names what the network side needs and what is lost without it.
	for _, stmt := range []string{"GRANT SELECT ON `%s`.`vm_instance_details` TO %s", "REVOKE SELECT ON `%s`.`network_acl_item` FROM %s"} {
		if _, err := d.Admin.Exec(fmt.Sprintf(stmt, d.Name, grantee)); err != nil {
			t.Fatal(err)
		}
	}
	code, out = run()
	fix = fmt.Sprintf("GRANT SELECT ON %s.network_acl_item TO %s;", d.Name, grantee)
	grants = line(out, "FAIL  database grants: ")
	if code != 1 || !strings.Contains(grants, "may not read network_acl_item (without it the network rules CKS created are not compared (network_rule_missing))") ||
		!strings.Contains(grants, fix) || !strings.Contains(out, "ok    inventory: 1 clusters, ") {
		t.Fatalf("the network side's grant missing: exit %d; want the grants line to name network_acl_item and %q, the inventory read\n%s", code, fix, out)
	}
}

// line is the line of out that starts with prefix, or "".
func line(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
