package database

import (
	"context"
	"database/sql"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// offeringSchema is where this database keeps what the offering check reads of a service
// offering: its uuid, name, removed and state.
type offeringSchema int

const (
	// offeringsUnread: the account may not read the offerings (no SELECT on service_offering, or
	// before 4.17 on disk_offering): the cycle reads everything else and compares no offering.
	offeringsUnread offeringSchema = iota
	// offeringsOwn: service_offering has them itself, from schema-41610to41700.sql (4.17.0.0,
	// lines 29, 30, 35 and 36 at 4.19.0.0; apache/cloudstack#5008 decoupled service and disk
	// offerings).
	offeringsOwn
	// offeringsOfDisk: before 4.17 a service offering is the disk_offering row of the same id,
	// which holds its uuid, name and removed (create-schema.sql at 4.14.0.0); there is no state.
	offeringsOfDisk
)

// offeringColumns are the kubernetes_cluster columns of a cluster's offerings, by node type:
// service_offering_id (schema-41310to41400.sql, 4.14) for the cluster, and from 4.21 each node
// type's own (schema-42010to42100.sql lines 52-54 at 4.21.0.0), NULL unless the cluster's creator
// named one for the node type.
var offeringColumns = []struct{ nodeType, column string }{
	{"", "service_offering_id"},
	{collector.NodeControl, "control_node_service_offering_id"},
	{collector.NodeWorker, "worker_node_service_offering_id"},
	{collector.NodeEtcd, "etcd_node_service_offering_id"},
}

// detectOfferings is how the schema the account sees keeps the offerings, and which node types'
// columns it has (each on its own: CloudStack's upgrade adds them one statement at a time).
func detectOfferings(present map[[2]string]bool) (offeringSchema, map[string]bool) {
	perType := map[string]bool{}
	for _, o := range offeringColumns[1:] {
		perType[o.nodeType] = present[[2]string{"kubernetes_cluster", o.column}]
	}
	switch {
	case !present[[2]string{"kubernetes_cluster", "service_offering_id"}] || !present[[2]string{"service_offering", "id"}]:
		return offeringsUnread, nil
	case present[[2]string{"service_offering", "uuid"}] && present[[2]string{"service_offering", "state"}]:
		return offeringsOwn, perType
	case present[[2]string{"disk_offering", "uuid"}]:
		return offeringsOfDisk, nil
	}
	return offeringsUnread, nil
}

// offeringsQuery reads the service offering of each node type of each cluster that is not
// removed, removed offerings included (CKS's scale looks its offering up with findById, which
// skips them, KubernetesClusterScaleWorker at 4.19.0.0 and 4.21.0.0): at most four rows per
// cluster, whatever the cloud holds. An offering is joined by its internal id and read by its
// uuid; a column that names no row gives no row.
func (c columns) offeringsQuery() string {
	if c.offerings == offeringsOfDisk {
		return `SELECT k.id, '', od.uuid, od.name, NULL, od.removed
FROM kubernetes_cluster k
JOIN service_offering so ON so.id = k.service_offering_id
JOIN disk_offering od ON od.id = so.id
WHERE k.removed IS NULL
ORDER BY k.id`
	}
	var parts []string
	for _, o := range offeringColumns {
		if o.nodeType != "" && !c.nodeOfferings[o.nodeType] {
			continue
		}
		parts = append(parts, `SELECT k.id, '`+o.nodeType+`', so.uuid, so.name, so.state, so.removed
FROM kubernetes_cluster k
JOIN service_offering so ON so.id = k.`+o.column+`
WHERE k.removed IS NULL`)
	}
	return strings.Join(parts, "\nUNION ALL\n") + "\nORDER BY 1"
}

// offeringRow is one node type's offering of one cluster; nodeType "" is the cluster's.
type offeringRow struct {
	clusterID  int64
	nodeType   string
	uuid, name sql.NullString
	state      sql.NullString
	removed    sql.NullTime
}

// readOfferings runs offeringsQuery, or nothing when the offerings cannot be read.
func (r reader) readOfferings(ctx context.Context, c columns) ([]offeringRow, error) {
	if c.offerings == offeringsUnread {
		return nil, nil
	}
	var out []offeringRow
	err := r.query(ctx, c.offeringsQuery(), func(res *sql.Rows) error {
		var o offeringRow
		err := res.Scan(&o.clusterID, &o.nodeType, &o.uuid, &o.name, &o.state, &o.removed)
		out = append(out, o)
		return err
	})
	return out, err
}

// clusterOfferings are the offering uuids one cluster's columns name: the cluster's (def) and
// its node types' own (byType).
type clusterOfferings struct {
	def    string
	byType map[string]string
}

// assembleOfferings gives the cycle its offerings by uuid, and the offering uuids of each cluster
// by its internal id.
func assembleOfferings(c columns, rows []offeringRow) (collector.Offerings, map[int64]*clusterOfferings) {
	out := collector.Offerings{Read: c.offerings != offeringsUnread}
	if len(rows) > 0 {
		out.ByID = make(map[string]collector.Offering, len(rows))
	}
	byCluster := make(map[int64]*clusterOfferings)
	for _, o := range rows {
		if o.uuid.String == "" {
			continue
		}
		out.ByID[o.uuid.String] = collector.Offering{ID: o.uuid.String, Name: o.name.String,
			Inactive: strings.EqualFold(o.state.String, "Inactive"), Removed: o.removed.Valid}
		k := byCluster[o.clusterID]
		if k == nil {
			k = &clusterOfferings{byType: map[string]string{}}
			byCluster[o.clusterID] = k
		}
		if o.nodeType == "" {
			k.def = o.uuid.String
		} else {
			k.byType[o.nodeType] = o.uuid.String
		}
	}
	return out, byCluster
}
