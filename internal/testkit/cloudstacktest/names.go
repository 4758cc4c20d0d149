package cloudstacktest

import "fmt"

// Pre416ControlName and Pre416WorkerName are the names CKS gave the i-th (from 0) control and
// worker VM of a cluster with the node name prefix before 4.16.0.0: "<prefix>-master" when the
// cluster has one control node, else "<prefix>-master-<i+1>", and "<prefix>-node-<i+1>"
// (KubernetesClusterStartWorker and KubernetesClusterResourceModifierActionWorker at 4.14.0.0
// and 4.15.2.0). Clusters created then keep these names after upgrades.
func Pre416ControlName(prefix string, i, controls int) string {
	if controls == 1 {
		return prefix + "-master"
	}
	return fmt.Sprintf("%s-master-%d", prefix, i+1)
}

// Pre416WorkerName: see Pre416ControlName.
func Pre416WorkerName(prefix string, i int) string { return fmt.Sprintf("%s-node-%d", prefix, i+1) }
