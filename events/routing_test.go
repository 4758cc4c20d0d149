package events

import (
	"slices"
	"testing"
)

// TestRoutingKeys: the bindings name every watched type as one word of CloudStack's routing key
// (dots to "-"), and an event read from the bus takes its resource from the key where the body
// has none, never a part that is no uuid.
func TestRoutingKeys(t *testing.T) {
	if got := RoutingKey("KUBERNETES.CLUSTER.SCALE", "KubernetesCluster", "c6f1d2a0-3b7e-4f59-a1c2-8e9d0b4f6a12"); got !=
		"management-server.ActionEvent.KUBERNETES-CLUSTER-SCALE.KubernetesCluster.c6f1d2a0-3b7e-4f59-a1c2-8e9d0b4f6a12" {
		t.Errorf("RoutingKey = %s", got)
	}
	if !slices.Contains(Bindings(), "*.ActionEvent.KUBERNETES-CLUSTER-NODES-REMOVE.*.*") || len(Bindings()) != len(WatchedTypes) {
		t.Errorf("bindings %v", Bindings())
	}
	var e Event
	fromRoutingKey(&e, RoutingKey("VM.EXPUNGE", "VirtualMachine", "5b4c7f0e-9a43-4c1e-8d2b-1f6a2e9c3d71"))
	if e.Entity != "VirtualMachine" || e.EntityID != "5b4c7f0e-9a43-4c1e-8d2b-1f6a2e9c3d71" {
		t.Errorf("from the key: %+v", e)
	}
	var none Event
	fromRoutingKey(&none, "management-server.ActionEvent.VM-START.*.*")
	fromRoutingKey(&none, "a.b.c")
	if none.Entity != "" || none.EntityID != "" {
		t.Errorf("a key without a resource gave %+v", none)
	}
}
