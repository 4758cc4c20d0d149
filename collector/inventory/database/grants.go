package database

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// readTables are the tables the source reads besides the VM details table (details.go), with what
// is lost without SELECT on those the source reads only when granted; an empty loss means a
// cycle fails without the grant.
var readTables = []struct{ name, loss string }{
	{name: "kubernetes_cluster"}, {name: "kubernetes_cluster_vm_map"}, {name: "vm_instance"}, {name: "user_vm"},
	{name: "account"}, {name: "domain"}, {name: "projects"}, {name: "data_center"}, {name: "networks"},
	{name: "user_ip_address"}, {name: "firewall_rules"}, {name: "port_forwarding_rules"}, {name: "nics"},
	{name: "kubernetes_supported_version", loss: "kubelet versions are not compared"},
	{name: "event", loss: "a stuck cluster's operation start is not read, and findings have no cause"},
	{name: "service_offering", loss: "the clusters' service offerings are not compared"},
	{name: "disk_offering", loss: "the clusters' service offerings are not compared before CloudStack 4.17"},
	{name: "network_offerings", loss: networkLoss},
	{name: "load_balancing_rules", loss: networkLoss},
	{name: "load_balancer_vm_map", loss: networkLoss},
	{name: "network_acl_item", loss: networkLoss},
}

// networkLoss is what is lost without a table only the network side reads (rules.go): the
// cycle reads everything else, and keeps the side's findings as they were.
const networkLoss = "the network rules CKS created are not compared (" + string(collector.KindNetworkRuleMissing) + ")"

// GrantScript is the statements that give grantee (e.g. 'cks_drift'@'10.0.0.%') SELECT on exactly
// the tables the source reads in database schema, on every CloudStack release and across its
// upgrades: SELECT on each table, and on both names of the VM details table. It is what
// docs/inventory-sources.md tells operators to run.
func GrantScript(schema, grantee string) []string {
	stmts := make([]string, 0, len(readTables)+4)
	for _, t := range readTables {
		stmts = append(stmts, "GRANT SELECT ON "+ident(schema)+"."+t.name+" TO "+grantee+";")
	}
	return append(stmts, detailsGrants(schema, grantee)...)
}

// MySQL's error numbers (mysqld_error.h) a SELECT of a table gives.
const (
	errTableAccessDenied = 1142 // ER_TABLEACCESS_DENIED_ERROR: no privilege on the table
	errNoSuchTable       = 1146 // ER_NO_SUCH_TABLE: a privilege, but no such table
)

// CheckGrants tries a SELECT of no rows on each table the source reads and returns the grants the
// account lacks, each with the statements that add it: a table it may not read, and either name of
// the VM details table not granted (a granted name that does not exist, the other one of this
// release, answers "no such table" instead of "denied"). An error is anything else, such as an
// unreachable server.
func (s *Source) CheckGrants(ctx context.Context) ([]*MissingGrantError, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.fail("begin", err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing was written
	r := reader{tx: tx, timeout: s.opts.QueryTimeout}
	denied := func(table string) (bool, error) {
		err := r.query(ctx, "SELECT 1 FROM "+table+" LIMIT 0", func(*sql.Rows) error { return nil })
		var my *mysql.MySQLError
		switch {
		case err == nil:
			return false, nil
		case errors.As(err, &my) && my.Number == errTableAccessDenied:
			return true, nil
		case errors.As(err, &my) && my.Number == errNoSuchTable && (table == detailsTable || table == oldDetailsTable):
			return false, nil
		default:
			return false, s.fail("read "+table, err)
		}
	}
	grantee, schema := r.whoami(ctx)
	var missing []*MissingGrantError
	for _, t := range readTables {
		no, err := denied(t.name)
		if err != nil {
			return nil, err
		}
		if no {
			why := "needed by every cycle"
			if t.loss != "" {
				why = "without it " + t.loss
			}
			missing = append(missing, &MissingGrantError{Table: t.name, Why: why,
				Grant: "GRANT SELECT ON " + ident(schema) + "." + t.name + " TO " + grantee + ";"})
		}
	}
	var details []string
	for _, table := range []string{oldDetailsTable, detailsTable} {
		no, err := denied(table)
		if err != nil {
			return nil, err
		}
		if no {
			details = append(details, table)
		}
	}
	if len(details) > 0 {
		missing = append(missing, &MissingGrantError{Table: strings.Join(details, " and "),
			Why:   "the VM details table is user_vm_details up to CloudStack 4.20 and vm_instance_details from 4.21; both are granted so that an upgrade keeps the exporter working",
			Grant: strings.Join(detailsGrants(schema, grantee), " ")})
	}
	return missing, nil
}

// quote is a string literal for an account name or host.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var plainIdent = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// ident is an identifier as a statement names it: quoted unless plain.
func ident(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
