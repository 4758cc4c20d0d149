package database

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The VM details table, where CKS keeps a control node's login user (controlNodeLoginUser), has
// a name per release: user_vm_details up to 4.20, vm_instance_details from 4.21.0.0, whose
// upgrade renames it (schema-42010to42100.sql line 341 at 4.21.0.0, commit f9513b47bf, apache/
// cloudstack PR #10736; VMInstanceDetailVO is @Table(name = "vm_instance_details")).
//
// The source finds the name in information_schema with the columns it detects. information_schema
// shows only the tables the account may read, so the name is found only where the account has the
// grant: MariaDB keeps a table's grants under the old name when the table is renamed, and refuses
// a plain GRANT SELECT on a table that does not exist yet (error 1146), but keeps one granted
// together with CREATE, which is then revoked. docs/inventory-sources.md gives both names so, which
// keeps the exporter reading across CloudStack's upgrade.
const (
	detailsTable    = "vm_instance_details" // 4.21 on
	oldDetailsTable = "user_vm_details"     // up to 4.20
)

// detailsOf is the VM details table the account may read: the new name when both are visible,
// which only a database CloudStack did not upgrade can show. Empty when neither is.
func detailsOf(present map[[2]string]bool) string {
	for _, table := range []string{detailsTable, oldDetailsTable} {
		if present[[2]string{table, "value"}] {
			return table
		}
	}
	return ""
}

// expectedDetails is the name this release gives the VM details table, for an account that may
// read neither: the map's etcd_node column came with the rename, in schema-42010to42100.sql.
func expectedDetails(c columns) string {
	if c.mapEtcd {
		return detailsTable
	}
	return oldDetailsTable
}

// MissingGrantError says that the account may not read a table the source needs, and which
// statement grants it.
type MissingGrantError struct {
	Table string // e.g. vm_instance_details
	Grant string // the statements that fix it, for the account as the server knows it
	Why   string // what the table is, for the message
}

func (e *MissingGrantError) Error() string {
	return fmt.Sprintf("the account may not read %s (%s); as an administrator run: %s", e.Table, e.Why, e.Grant)
}

// noDetails is the error of a cycle whose account may read neither name of the VM details table.
func (r reader) noDetails(ctx context.Context, c columns) error {
	table := expectedDetails(c)
	why := "the VM details table of CloudStack 4.21 and later, user_vm_details before"
	if table == oldDetailsTable {
		why = "the VM details table of CloudStack up to 4.20, vm_instance_details from 4.21"
	}
	grantee, schema := r.whoami(ctx)
	return &MissingGrantError{Table: table, Why: why, Grant: strings.Join(detailsGrants(schema, grantee), " ")}
}

// whoami is the account as the server matched it (CURRENT_USER(), e.g. cks_drift@10.0.0.%) and
// the database, for a GRANT statement; placeholders when the server does not say.
func (r reader) whoami(ctx context.Context) (grantee, schema string) {
	grantee, schema = "'<user>'@'<host>'", "cloud"
	var user, db sql.NullString
	if err := r.query(ctx, "SELECT CURRENT_USER(), DATABASE()", func(res *sql.Rows) error { return res.Scan(&user, &db) }); err != nil {
		return grantee, schema
	}
	if name, host, ok := strings.Cut(user.String, "@"); ok {
		grantee = quote(name) + "@" + quote(host)
	}
	if db.String != "" {
		schema = db.String
	}
	return grantee, schema
}

// detailsGrants are the statements that let grantee read the VM details table under both of its
// names, in database schema, whichever of them exists now: a SELECT on a table that does not
// exist yet is only granted together with CREATE, which the next statement takes back.
func detailsGrants(schema, grantee string) []string {
	var stmts []string
	for _, table := range []string{oldDetailsTable, detailsTable} {
		target := ident(schema) + "." + table
		stmts = append(stmts, "GRANT SELECT, CREATE ON "+target+" TO "+grantee+";",
			"REVOKE CREATE ON "+target+" FROM "+grantee+";")
	}
	return stmts
}
