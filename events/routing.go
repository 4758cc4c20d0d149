package events

import "strings"

// WatchedTypes are the action events that can change what the exporter compares: a cluster's own
// commands, what happens to VMs, and the network rules CKS creates (EventTypes.java and
// KubernetesClusterEventTypes.java at 4.20.0.0). The event bus is bound to these, so that the
// broker does not send the exporter every event of the cloud.
var WatchedTypes = []string{
	"KUBERNETES.CLUSTER.CREATE", "KUBERNETES.CLUSTER.DELETE", "KUBERNETES.CLUSTER.START", "KUBERNETES.CLUSTER.STOP",
	"KUBERNETES.CLUSTER.SCALE", "KUBERNETES.CLUSTER.UPGRADE", "KUBERNETES.CLUSTER.NODES.ADD", "KUBERNETES.CLUSTER.NODES.REMOVE",
	"VM.CREATE", "VM.DESTROY", "VM.EXPUNGE", "VM.START", "VM.STOP", "VM.REBOOT", "VM.MIGRATE", "VM.MOVE", "VM.RESTORE",
	"VM.RECOVER", "VM.IMPORT", "VM.UNMANAGE",
	"NET.RULEADD", "NET.RULEDELETE", "NET.RULEMODIFY", "FIREWALL.OPEN", "FIREWALL.CLOSE", "FIREWALL.UPDATE",
	"LB.CREATE", "LB.DELETE", "LB.UPDATE", "LB.ASSIGN.TO.RULE", "LB.REMOVE.FROM.RULE",
	"NETWORK.ACL.ITEM.CREATE", "NETWORK.ACL.ITEM.UPDATE", "NETWORK.ACL.ITEM.DELETE",
}

// keyPart is one part of a routing key as RabbitMQEventBus.createRoutingKey writes it: a dot
// inside the part becomes "-", and a part CloudStack does not know is "*".
func keyPart(s string) string {
	if s == "" {
		return "*"
	}
	return strings.ReplaceAll(s, ".", "-")
}

// Bindings are the binding keys of the exporter's queue on CloudStack's exchange: every action
// event of the WatchedTypes, whatever its resource. A routing key is
// <source>.<category>.<type>.<resource type>.<resource uuid> (RabbitMQEventBus at 4.20.0.0).
func Bindings() []string {
	out := make([]string, len(WatchedTypes))
	for i, t := range WatchedTypes {
		out[i] = "*.ActionEvent." + keyPart(t) + ".*.*"
	}
	return out
}

// RoutingKey is the routing key CloudStack publishes an action event with.
func RoutingKey(eventType, resourceType, resourceUUID string) string {
	return "management-server.ActionEvent." + keyPart(eventType) + "." + keyPart(resourceType) + "." + keyPart(resourceUUID)
}

// fromRoutingKey fills in what the body leaves out from the routing key: the resource type and
// uuid, where the body has none.
func fromRoutingKey(e *Event, key string) {
	parts := strings.Split(key, ".")
	if len(parts) != 5 {
		return
	}
	if e.Entity == "" && entityPattern.MatchString(parts[3]) {
		e.Entity = parts[3]
	}
	if e.EntityID == "" && uuidPattern.MatchString(parts[4]) {
		e.EntityID = parts[4]
	}
}
