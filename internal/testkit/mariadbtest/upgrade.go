package mariadbtest

import (
	"context"
	"testing"
	"time"
)

// Upgrade moves d's schema from 4.19's or 4.20's shape to 4.21's, with the statements of
// CloudStack's own upgrade (engine/schema/src/main/resources/META-INF/db/ schema-42010to42100.sql
// at 4.21.0.0, commit f9513b47bf): the columns the exporter reads, added as lines 52-55 and 61-64
// add them, and the VM details table renamed as line 341 renames it; from 4.19, first 4.20's
// network_offerings.network_mode (schema-41910to42000.sql lines 80 and 196 at 4.20.0.0, added as
// nsx_mode and renamed). The rows stay; grants stay as the server keeps them (MariaDB keeps a
// table's grants under its old name). Later loads write 4.21's columns.
func (d *Database) Upgrade(t testing.TB) {
	t.Helper()
	if d.Version != V4_19 && d.Version != V4_20 {
		t.Fatalf("mariadbtest: Upgrade moves 4.19's or 4.20's schema to 4.21's, not %s's", d.Version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stmts []string
	if d.Version == V4_19 {
		stmts = append(stmts,
			"ALTER TABLE `network_offerings` ADD COLUMN `nsx_mode` varchar(32) COMMENT 'mode in which the network would route traffic'",
			"ALTER TABLE `network_offerings` CHANGE `nsx_mode` `network_mode` varchar(32) COMMENT 'mode in which the network would route traffic'")
	}
	for _, stmt := range append(stmts,
		"ALTER TABLE `kubernetes_cluster` ADD COLUMN `etcd_node_count` bigint unsigned COMMENT 'number of etcd nodes to be deployed for the Kubernetes cluster'",
		"ALTER TABLE `kubernetes_cluster` ADD COLUMN `control_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for Control Node(s)'",
		"ALTER TABLE `kubernetes_cluster` ADD COLUMN `worker_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for Worker Node(s)'",
		"ALTER TABLE `kubernetes_cluster` ADD COLUMN `etcd_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for etcd Nodes'",
		"ALTER TABLE `kubernetes_cluster_vm_map` ADD COLUMN `etcd_node` tinyint(1) unsigned NOT NULL DEFAULT 0 COMMENT 'indicates if the VM is an etcd node'",
		"ALTER TABLE `kubernetes_cluster_vm_map` ADD COLUMN `external_node` tinyint(1) unsigned NOT NULL DEFAULT 0 COMMENT 'indicates if the node was imported into the Kubernetes cluster'",
		"ALTER TABLE `kubernetes_cluster_vm_map` ADD COLUMN `kubernetes_node_version` varchar(40) COMMENT 'version of k8s the cluster node is on'",
		"ALTER TABLE `user_vm_details` RENAME TO `vm_instance_details`",
	) {
		if _, err := d.Admin.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("mariadbtest: upgrade: %v\n%s", err, stmt)
		}
	}
	d.Version = V4_21
}
