package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// loginWorld is one cluster whose control node logs in as "cloud" (its controlNodeLoginUser).
func loginWorld(release string) *cloudstacktest.World {
	w := &cloudstacktest.World{Release: release}
	w.BuildCluster(cloudstacktest.ClusterSpec{Name: "k", Account: "alice", Control: 1, Workers: 1, Created: created, LoginUser: "cloud"})
	return w
}

// loginUser is the SSH user of the inventory's one cluster, read as dsn reads it.
func loginUser(t *testing.T, dsn string) (string, error) {
	t.Helper()
	inv, err := newSource(t, Options{DSN: dsn}).Inventory(context.Background())
	if err != nil {
		return "", err
	}
	if len(inv.Clusters) != 1 {
		t.Fatalf("%d clusters, want 1", len(inv.Clusters))
	}
	return inv.Clusters[0].SSH.User, nil
}

// TestVMDetailsAcrossTheUpgrade reads the login user from the VM details table by the name of the
// release, as an account with exactly the documented grants (GrantScript): at 4.20, after
// CloudStack's upgrade to 4.21 renamed the table (MariaDB keeps the old name's grant and gives
// none on the new one), and on a database created at 4.21. An account granted the old name only,
// as the documentation said before 4.21, reads 4.20 but fails after the upgrade with an error that
// names the table and the statements that fix it; CheckGrants names the same.
func TestVMDetailsAcrossTheUpgrade(t *testing.T) {
	srv := mariadbtest.Start(t)
	d := srv.NewDatabaseOf(t, loginWorld("4.20"))
	documented := grantedAccount(t, d, "_doc")
	old := grantedAccount(t, d, "_old", "vm_instance_details", "user_vm_details")
	if _, err := d.Admin.Exec(fmt.Sprintf("GRANT SELECT ON `%s`.`user_vm_details` TO '%s_old'@'%%'", d.Name, d.Name)); err != nil {
		t.Fatal(err)
	}
	for name, dsn := range map[string]string{"documented": documented, "old": old} {
		if user, err := loginUser(t, dsn); err != nil || user != "cloud" {
			t.Fatalf("4.20, %s grants: login user %q, %v; want cloud", name, user, err)
		}
	}

	d.Upgrade(t)
	if user, err := loginUser(t, documented); err != nil || user != "cloud" {
		t.Errorf("4.21 after the upgrade, documented grants: login user %q, %v; want cloud", user, err)
	}
	_, err := loginUser(t, old)
	var missing *MissingGrantError
	if !errors.As(err, &missing) || missing.Table != "vm_instance_details" {
		t.Fatalf("4.21 after the upgrade, the old name granted only: %v; want a MissingGrantError for vm_instance_details", err)
	}
	grantee := fmt.Sprintf("'%s_old'@'%%'", d.Name)
	fix := fmt.Sprintf("GRANT SELECT, CREATE ON %s.vm_instance_details TO %s; REVOKE CREATE ON %s.vm_instance_details FROM %s;", d.Name, grantee, d.Name, grantee)
	if !strings.HasPrefix(err.Error(), "database: read the VM details table: the account may not read vm_instance_details") || !strings.Contains(err.Error(), fix) {
		t.Errorf("error %q; want it to name the table and contain %q", err, fix)
	}
	t.Logf("error: %v", err)
	checked, err := newSource(t, Options{DSN: old}).CheckGrants(context.Background())
	if err != nil || len(checked) != 1 || checked[0].Table != "vm_instance_details" || !strings.Contains(checked[0].Grant, fix) {
		t.Errorf("CheckGrants: %v, %v; want vm_instance_details missing, fixed by %q", checked, err, fix)
	}
	if checked, err := newSource(t, Options{DSN: documented}).CheckGrants(context.Background()); err != nil || len(checked) != 0 {
		t.Errorf("CheckGrants with the documented grants: %v, %v; want nothing missing", checked, err)
	}

	// A database created at 4.21 never had user_vm_details: the documented grants still apply.
	fresh := srv.NewDatabaseOf(t, loginWorld("4.21"))
	if user, err := loginUser(t, grantedAccount(t, fresh, "_doc")); err != nil || user != "cloud" {
		t.Errorf("4.21, documented grants: login user %q, %v; want cloud", user, err)
	}
}

// TestCheckGrants names each table the account may not read, with the statement that grants it,
// and reports nothing for an account with the documented grants, at 4.20 and at 4.21. The upgrade
// grant is checked ahead of the upgrade: at 4.20, an account that may read user_vm_details but
// was not granted vm_instance_details lacks a grant.
func TestCheckGrants(t *testing.T) {
	srv := mariadbtest.Start(t)
	for _, release := range []string{"4.20", "4.21"} {
		t.Run(release, func(t *testing.T) {
			d := srv.NewDatabaseOf(t, loginWorld(release))
			if got, err := newSource(t, Options{DSN: grantedAccount(t, d, "_doc")}).CheckGrants(context.Background()); err != nil || len(got) != 0 {
				t.Errorf("documented grants: %v, %v; want nothing missing", got, err)
			}
			dsn := grantedAccount(t, d, "_some", "nics", "event", "vm_instance_details")
			got, err := newSource(t, Options{DSN: dsn}).CheckGrants(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			grantee := fmt.Sprintf("'%s_some'@'%%'", d.Name)
			want := []string{
				"nics: GRANT SELECT ON " + d.Name + ".nics TO " + grantee + ";",
				"event: GRANT SELECT ON " + d.Name + ".event TO " + grantee + ";",
				"vm_instance_details: GRANT SELECT, CREATE ON " + d.Name + ".user_vm_details TO " + grantee + ";",
			}
			if len(got) != len(want) {
				t.Fatalf("missing grants %v; want %d", got, len(want))
			}
			for i, m := range got {
				if line := m.Table + ": " + m.Grant; !strings.HasPrefix(line, want[i]) {
					t.Errorf("missing grant %d: %q; want it to start with %q", i, line, want[i])
				}
			}
		})
	}
}
