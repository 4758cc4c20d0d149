package report

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

// Guide says what a kind of finding means and what to do about it, in a sentence each, and
// where its runbook is: the section Anchor of docs/runbooks.md, which has the CloudStack
// commands to look with.
type Guide struct {
	Meaning string
	Action  string
	Anchor  string
}

// guides has one Guide per kind (TestEveryKindHasAGuide); stuck_in_operation links its alert's
// runbook.
var guides = map[collector.Kind]Guide{
	collector.KindUnmappedVM: {
		Meaning: "A VM named as a node of the cluster is in no cluster's VM map: CloudStack will not scale, upgrade or delete it with the cluster.",
		Action:  "Find who created it (its account, project and events); remove a stray VM, or accept it in the configuration's accept: if it belongs there.",
		Anchor:  "unmapped_vm",
	},
	collector.KindMappedVMExpunged: {
		Meaning: "A VM of the cluster's map is destroyed or expunged: CloudStack counts a node that is gone or going.",
		Action:  "Find who destroyed it in the events; scale the cluster back to its size, or have the map row removed.",
		Anchor:  "mapped_vm_expunged",
	},
	collector.KindMappedVMMissing: {
		Meaning: "A row of the cluster's VM map names a VM that does not exist: a dangling row that only the database shows.",
		Action:  "Have the row removed from cloud.kubernetes_cluster_vm_map, then scale the cluster back to its size.",
		Anchor:  "mapped_vm_missing",
	},
	collector.KindVMMapIncomplete: {
		Meaning: "The cluster's VM map shows fewer VMs than its control, worker and etcd nodes: rows name VMs the API no longer shows.",
		Action:  "Read the map in the database (or with the database source), then scale the cluster back to its size.",
		Anchor:  "vm_map_incomplete",
	},
	collector.KindVMNotANode: {
		Meaning: "A running VM of the cluster is not a Kubernetes node: it never joined, or its kubelet stopped.",
		Action:  "Look at the kubelet on the VM (systemctl status kubelet, journalctl -u kubelet); repair it or replace the node.",
		Anchor:  "vm_not_a_node",
	},
	collector.KindNodeWithoutVM: {
		Meaning: "A Kubernetes node has no VM in CloudStack: its VM was removed without the node.",
		Action:  "Make sure the VM is gone for good (the events), then kubectl delete node.",
		Anchor:  "node_without_vm",
	},
	collector.KindNodeVersionMismatch: {
		Meaning: "A node's kubelet runs another Kubernetes version than CloudStack records for the cluster: an upgrade left it behind, or failed half-way.",
		Action:  "Compare the cluster's version in CloudStack with kubectl get nodes; upgrade the nodes that lag behind, or have CloudStack's record corrected.",
		Anchor:  "node_version_mismatch",
	},
	collector.KindStuckInOperation: {
		Meaning: "The cluster has stayed in one operation state (Scaling, Starting, ...) longer than check.stuck_after: its job died or hangs, and it is not checked for drift meanwhile.",
		Action:  "Find the operation's event and job in CloudStack; once understood, bring the cluster out of the state (the runbook says how for each state).",
		Anchor:  "cksclusterstuckinoperation",
	},
}

// GuideOf returns the guide of a kind, and false for a kind that has none.
func GuideOf(k collector.Kind) (Guide, bool) {
	g, ok := guides[k]
	return g, ok
}

// RunbookURL returns the link to the runbook of a kind: its own section, or for a kind without
// a guide the section of its side's alert.
func RunbookURL(k collector.Kind) string {
	if g, ok := guides[k]; ok {
		return rules.RunbookBaseURL + "#" + g.Anchor
	}
	if k.Side() == collector.SideNode {
		return rules.RunbookBaseURL + "#cksnodedrift"
	}
	return rules.RunbookBaseURL + "#cksvmmapdrift"
}
