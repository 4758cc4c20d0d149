package database

// clusterEvent is the condition of the events of type eventType whose resource is the cluster k:
// event.resource_type and resource_id (schema-41610to41700.sql, 4.17), the cluster's internal
// id as ActionEventUtils records it. Only the type and the resource are matched, never the
// description, which carries names tenants choose.
func clusterEvent(eventType string) string {
	return "(e.type = '" + eventType + "' AND e.resource_type = 'KubernetesCluster' AND e.resource_id = k.id)"
}
