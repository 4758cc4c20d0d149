package mariadbtest

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"
	"testing"
	"time"
)

//go:embed schema.sql
var schemaSQL string

// Version is the CloudStack release whose schema a database holds; each drops or renames what
// that release's upgrade scripts had not yet added.
type Version int

// Schema versions, by the upgrade script that changed what the exporter reads.
const (
	// V4_14: kubernetes_cluster with master_node_count; map rows without flags
	// (schema-41310to41400.sql).
	V4_14 Version = iota + 1 // the zero Version is no version
	// V4_16: master_node_count renamed control_node_count; kubernetes_cluster_vm_map.control_node
	// (schema-41520to41600.sql).
	V4_16
	// V4_17: event.resource_id and resource_type; service_offering's own uuid, name, removed and
	// state, which disk_offering held before (schema-41610to41700.sql).
	V4_17
	// V4_19: kubernetes_cluster.cluster_type (schema-41810to41900.sql).
	V4_19
	// V4_20: network_offerings.network_mode, ROUTED for the offerings of routed networks
	// (schema-41910to42000.sql, lines 80 and 196 at 4.20.0.0).
	V4_20
	// V4_21: kubernetes_cluster.etcd_node_count and the node types' service offerings,
	// kubernetes_cluster_vm_map.etcd_node and external_node; user_vm_details renamed
	// vm_instance_details (schema-42010to42100.sql). The
	// schema of schema.sql.
	V4_21
	// Current is the newest schema.
	Current = V4_21
)

// SchemaOf returns the schema version of a release line ("4.14" ... "4.22"): the schema changes
// that matter to the exporter came in 4.16, 4.17, 4.19, 4.20 and 4.21, so several lines share one.
func SchemaOf(release string) Version {
	switch release {
	case "4.14", "4.15":
		return V4_14
	case "4.16":
		return V4_16
	case "4.17", "4.18":
		return V4_17
	case "4.19":
		return V4_19
	case "4.20":
		return V4_20
	default:
		return V4_21
	}
}

func (v Version) String() string {
	return [...]string{"unset", "4.14", "4.16", "4.17", "4.19", "4.20", "4.21"}[v]
}

// downgrade lists the statements that turn the current schema into v's.
func (v Version) downgrade() []string {
	var stmts []string
	if v < V4_21 {
		stmts = append(stmts,
			"ALTER TABLE `kubernetes_cluster` DROP COLUMN `etcd_node_count`, DROP COLUMN `control_node_service_offering_id`, "+
				"DROP COLUMN `worker_node_service_offering_id`, DROP COLUMN `etcd_node_service_offering_id`",
			"ALTER TABLE `kubernetes_cluster_vm_map` DROP COLUMN `etcd_node`, DROP COLUMN `external_node`, DROP COLUMN `kubernetes_node_version`",
			"RENAME TABLE `vm_instance_details` TO `user_vm_details`")
	}
	if v < V4_20 {
		stmts = append(stmts, "ALTER TABLE `network_offerings` DROP COLUMN `network_mode`")
	}
	if v < V4_19 {
		stmts = append(stmts, "ALTER TABLE `kubernetes_cluster` DROP COLUMN `cluster_type`")
	}
	if v < V4_17 {
		stmts = append(stmts, "ALTER TABLE `event` DROP COLUMN `resource_id`, DROP COLUMN `resource_type`",
			"ALTER TABLE `service_offering` DROP COLUMN `uuid`, DROP COLUMN `name`, DROP COLUMN `removed`, DROP COLUMN `state`")
	}
	if v < V4_16 {
		stmts = append(stmts,
			"ALTER TABLE `kubernetes_cluster` CHANGE `control_node_count` `master_node_count` bigint NOT NULL default '0' COMMENT 'the number of the master nodes deployed for this Kubernetes cluster'",
			"ALTER TABLE `kubernetes_cluster_vm_map` DROP COLUMN `control_node`",
			"ALTER TABLE `user_vm` DROP COLUMN `user_vm_type`")
	}
	return stmts
}

// DetailsTable is the name of the VM details table at v: vm_instance_details from 4.21,
// user_vm_details before.
func (v Version) DetailsTable() string {
	if v >= V4_21 {
		return "vm_instance_details"
	}
	return "user_vm_details"
}

// Database is a fresh database holding CloudStack's schema at Version, dropped when the test ends.
type Database struct {
	Name    string
	Version Version
	// Admin is an administrator's connection pool to the database, for seeding and for breaking
	// things; it is closed when the test ends.
	Admin *sql.DB

	db *DB
}

// DSN is the administrator's DSN of the database.
func (d *Database) DSN() string { return d.db.DSN(d.Name) }

// ReaderDSN is the SELECT-only account's DSN of the database (see DB.ReaderDSN).
func (d *Database) ReaderDSN() string { return d.db.ReaderDSN(d.Name) }

// NewDatabase creates a database with the current schema; see NewDatabaseAt.
func (db *DB) NewDatabase(t testing.TB) *Database {
	t.Helper()
	return db.NewDatabaseAt(t, Current)
}

// NewDatabaseAt creates a database named after the test with CloudStack's schema at version v.
func (db *DB) NewDatabaseAt(t testing.TB, v Version) *Database {
	t.Helper()
	if v < V4_14 || v > Current {
		t.Fatalf("mariadbtest: unknown schema version %d", v)
	}
	db.mu.Lock()
	db.seq++
	name := fmt.Sprintf("cksdrift_%d_%d", time.Now().UnixNano()%1e9, db.seq)
	db.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root, err := db.open("")
	if err != nil {
		t.Fatalf("mariadbtest: %v", err)
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8"); err != nil {
		t.Fatalf("mariadbtest: create database: %v", err)
	}
	t.Cleanup(func() {
		root, err := db.open("")
		if err != nil {
			t.Errorf("mariadbtest: %v", err)
			return
		}
		defer root.Close()
		if _, err := root.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
			t.Errorf("mariadbtest: drop database %s: %v", name, err)
		}
	})

	admin, err := db.open(name)
	if err != nil {
		t.Fatalf("mariadbtest: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	for _, stmt := range append(statements(schemaSQL), v.downgrade()...) {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("mariadbtest: schema %s: %v\n%s", v, err, stmt)
		}
	}
	return &Database{Name: name, Version: v, Admin: admin, db: db}
}

// statements splits schema.sql at semicolons that end a line, dropping comment lines.
func statements(script string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
