package collector

// This file is the one declaration of every kind of drift and of every side. Everything else
// that lists kinds is made from it or checked against it: the zero-valued cks_drift_findings
// series, the accept rules' validation, the status page's guides, the CloudStack alerts' advice,
// the kinds tables of README.md and docs/how-it-works.md and the drift alerts' expressions and
// descriptions in rules/cks-drift.rules.yml (make docs), the runbook sections they link, the
// dashboards' and the demo's lists (tests). Adding a kind is adding its Declaration here and the
// code that makes its findings (CONTRIBUTING.md, "Adding a kind").

// Kind is the kind of drift, the value of the kind label.
type Kind string

// Subject is what one finding of a kind is about, and so what its vm_id and vm_name say.
type Subject string

// The subjects of findings.
const (
	// SubjectVM: one VM (or map row) of the cluster; vm_id and vm_name name it.
	SubjectVM Subject = "VM"
	// SubjectNode: one Kubernetes node; vm_name is the node's name, vm_id its VM's uuid if any.
	SubjectNode Subject = "node"
	// SubjectCluster: the whole cluster; vm_id and vm_name are empty, and an accept rule names
	// no vm.
	SubjectCluster Subject = "cluster"
	// SubjectVMOrCluster: one VM (vm_id and vm_name name it), or the whole cluster (both empty);
	// an accept rule names the VM, or no vm for the cluster's finding.
	SubjectVMOrCluster Subject = "VM or cluster"
)

// Declaration is everything that is a fact of one kind of drift. The values are part of the
// exporter's interface: Kind is a label value, and the texts are shown to operators.
type Declaration struct {
	Kind    Kind
	Side    Side
	Subject Subject
	// When says exactly when a finding of the kind is made (docs/how-it-works.md's table).
	When string
	// Meaning says in a sentence what a finding means (the status page, README's table).
	Meaning string
	// Action says in a sentence what an operator should do (the status page).
	Action string
	// Advice is the last sentence of the kind's CloudStack alerts: where to look first.
	Advice string
	// Anchor is the kind's section of docs/runbooks.md, which the status page links.
	Anchor string
	// Alert is the Prometheus alert of rules/cks-drift.rules.yml that fires for the kind's
	// findings, with Severity as its severity label; Rule is the alert's description of one
	// finding, a Prometheus template over the finding's labels ($labels.cluster_name,
	// $labels.vm_id, $labels.vm_name, $labels.kind).
	Alert    string
	Severity string
	Rule     string
	// Causes are the CloudStack events that can explain a new finding of the kind: the finding's
	// cause (cause.go) is the newest of them recorded against its VM or its cluster (event types
	// of EventTypes.java at 4.19.0.0, which maps the VM.* ones to VirtualMachine; the cluster's
	// from 4.19.1.0, #9070).
	Causes Explanation
}

// checkVMs is the advice of the kinds whose CloudStack alert asks to compare the VM map, the
// VMs and the nodes.
const checkVMs = "Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

// clusterChanges are the commands that change a cluster's VM map (KubernetesClusterEventTypes'
// scale, upgrade, and 4.21's node removal; the create, start and stop of a cluster change no
// map of a Running cluster).
var clusterChanges = []string{"KUBERNETES.CLUSTER.SCALE", "KUBERNETES.CLUSTER.UPGRADE", "KUBERNETES.CLUSTER.NODES.REMOVE"}

// Declarations declares every kind, in the fixed order of Kinds.
var Declarations = []Declaration{
	{
		Kind: KindUnmappedVM, Side: SideVM, Subject: SubjectVM,
		When:    "a VM named as a node of the cluster (CKS naming, below) in the cluster's account or project is in no cluster's VM map; or one CloudStack records as deployed by CKS (`vmtype` cksnode from 4.20, `user_vm.user_vm_type` from 4.16 in the database) in the cluster's account or project, in no map and named as no node of the owner's clusters, whatever its name (one cluster of the owner reports it: the one created last before the VM)",
		Meaning: "A VM named as a node of the cluster is in no cluster's VM map: CloudStack will not scale, upgrade or delete it with the cluster.",
		Action:  "Find who created it (its account, project and events); remove a stray VM, or accept it in the configuration's accept: if it belongs there.",
		Advice:  checkVMs,
		Anchor:  "unmapped_vm",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "VM {{ $labels.vm_name }} ({{ $labels.vm_id }}) is named as a node of Kubernetes cluster {{ $labels.cluster_name }} but is not one of its VMs in CloudStack.",
		Causes: Explanation{On: CauseOnVM, Types: []string{"VM.CREATE"}},
	},
	{
		Kind: KindMappedVMExpunged, Side: SideVM, Subject: SubjectVM,
		When:    "a VM of the map is Destroyed or Expunging (or removed, seen through the database)",
		Meaning: "A VM of the cluster's map is destroyed or expunged: CloudStack counts a node that is gone or going.",
		Action:  "Find who destroyed it in the events; scale the cluster back to its size, or have the map row removed.",
		Advice:  checkVMs,
		Anchor:  "mapped_vm_expunged",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "VM {{ $labels.vm_name }} ({{ $labels.vm_id }}) is one of the VMs of Kubernetes cluster {{ $labels.cluster_name }} in CloudStack, but has been or is being expunged.",
		Causes: Explanation{On: CauseOnVM, Types: []string{"VM.DESTROY", "VM.EXPUNGE", EventVMUnmanage}},
	},
	{
		Kind: KindMappedVMMissing, Side: SideVM, Subject: SubjectVM,
		When:    "a map row names a VM id that does not exist (needs a source that reads the map rows)",
		Meaning: "A row of the cluster's VM map names a VM that does not exist: a dangling row that only the database shows.",
		Action:  "Have the row removed from cloud.kubernetes_cluster_vm_map, then scale the cluster back to its size.",
		Advice:  checkVMs,
		Anchor:  "mapped_vm_missing",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "VM with ID {{ $labels.vm_id }} is one of the VMs of Kubernetes cluster {{ $labels.cluster_name }} in CloudStack, but does not exist.",
		Causes: Explanation{On: CauseOnCluster, Types: clusterChanges},
	},
	{
		Kind: KindVMMapIncomplete, Side: SideVM, Subject: SubjectCluster,
		When:    "the map shows fewer VMs than the cluster's control + worker + etcd nodes, and unmapped VMs do not explain the gap",
		Meaning: "The cluster's VM map shows fewer VMs than its control, worker and etcd nodes: rows name VMs the API no longer shows.",
		Action:  "Read the map in the database (or with the database source), then scale the cluster back to its size.",
		Advice:  checkVMs,
		Anchor:  "vm_map_incomplete",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "The VM map of Kubernetes cluster {{ $labels.cluster_name }} in CloudStack lists fewer VMs than the cluster's control, worker and etcd nodes ({{ $labels.kind }}); the numbers are in the finding's message on the exporter's /findings page.",
		Causes: Explanation{On: CauseOnCluster, Types: clusterChanges},
	},
	{
		Kind: KindVMMapExcess, Side: SideVM, Subject: SubjectCluster,
		When:    "the map holds more worker VMs (live VMs that are not control, etcd or external nodes) than the cluster's size; a scale-down of a cluster with several control nodes leaves them on 4.21 and 4.22 (apache/cloudstack#12229)",
		Meaning: "The cluster's VM map holds more worker VMs than its size: CKS's next scale counts from the size and leaves the extra workers out of it.",
		Action:  "Scale the cluster to the number of workers its map holds, or remove the extra workers with scaleKubernetesCluster's nodeids, then to the size you want.",
		Advice:  checkVMs,
		Anchor:  "vm_map_excess",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "The VM map of Kubernetes cluster {{ $labels.cluster_name }} in CloudStack holds more worker VMs than the cluster's size ({{ $labels.kind }}); the numbers are in the finding's message on the exporter's /findings page.",
		Causes: Explanation{On: CauseOnCluster, Types: clusterChanges},
	},
	{
		Kind: KindMappedVMNotRunning, Side: SideVM, Subject: SubjectVM,
		When:    "a VM of the map, past the grace period, is in a state other than Running and not Destroyed or Expunging (Stopped, Error, Starting, ...) while the cluster is Running or in Alert",
		Meaning: "A VM of the cluster's map is not running: CloudStack keeps the cluster in Alert, and CKS's next upgrade, which reaches every node over SSH, fails.",
		Action:  "Find who stopped it in the events (a user, or HA); start the VM, or replace the node with a scale.",
		Advice:  "Start the VM, or find in CloudStack's events why it stopped.",
		Anchor:  "mapped_vm_not_running",
		Alert:   "CKSVMMapDrift", Severity: "warning",
		Rule:   "VM {{ $labels.vm_name }} ({{ $labels.vm_id }}) of Kubernetes cluster {{ $labels.cluster_name }} is not running in CloudStack ({{ $labels.kind }}); its state is in the finding's message on the exporter's /findings page.",
		Causes: Explanation{On: CauseOnVM, Types: []string{"VM.STOP"}},
	},
	{
		Kind: KindVMNotANode, Side: SideNode, Subject: SubjectVM,
		When:    "a Running VM of the map, past the grace period and not an etcd node, is not a Kubernetes node",
		Meaning: "A running VM of the cluster is not a Kubernetes node: it never joined, or its kubelet stopped.",
		Action:  "Look at the kubelet on the VM (systemctl status kubelet, journalctl -u kubelet); repair it or replace the node.",
		Advice:  checkVMs,
		Anchor:  "vm_not_a_node",
		Alert:   "CKSNodeDrift", Severity: "warning",
		Rule: "VM {{ $labels.vm_name }} ({{ $labels.vm_id }}) of Kubernetes cluster {{ $labels.cluster_name }} is running but is not a Kubernetes node of the cluster ({{ $labels.kind }}).",
	},
	{
		Kind: KindNodeWithoutVM, Side: SideNode, Subject: SubjectNode,
		When:    "a Kubernetes node matches no VM of the cluster, mapped or named as a node",
		Meaning: "A Kubernetes node has no VM in CloudStack: its VM was removed without the node.",
		Action:  "Make sure the VM is gone for good (the events), then kubectl delete node.",
		Advice:  checkVMs,
		Anchor:  "node_without_vm",
		Alert:   "CKSNodeDrift", Severity: "warning",
		Rule: "Kubernetes node {{ $labels.vm_name }} of cluster {{ $labels.cluster_name }} has no VM in CloudStack.",
	},
	{
		Kind: KindNodeVersionMismatch, Side: SideNode, Subject: SubjectNode,
		When:    "a Kubernetes node's kubelet version (major.minor.patch) differs from the semantic version of the cluster's Kubernetes version in CloudStack; an unknown or unreadable version on either side is not compared (see [node-sources.md](node-sources.md), \"Kubelet versions\")",
		Meaning: "A node's kubelet runs another Kubernetes version than CloudStack records for the cluster: an upgrade left it behind, or failed half-way.",
		Action:  "Compare the cluster's version in CloudStack with kubectl get nodes; upgrade the nodes that lag behind, or have CloudStack's record corrected.",
		Advice:  "Compare the cluster's Kubernetes version in CloudStack with the kubelet versions of its nodes (kubectl get nodes).",
		Anchor:  "node_version_mismatch",
		Alert:   "CKSNodeDrift", Severity: "warning",
		Rule:   "Kubernetes node {{ $labels.vm_name }} of cluster {{ $labels.cluster_name }} runs another kubelet version than the cluster's Kubernetes version in CloudStack (node_version_mismatch).",
		Causes: Explanation{On: CauseOnCluster, Types: []string{"KUBERNETES.CLUSTER.UPGRADE"}},
	},
	{
		Kind: KindStuckInOperation, Side: SideOperation, Subject: SubjectCluster,
		When:    "the cluster has been in one operation state (any state but Created, Running, Alert, Stopped, Error and Destroyed: Scaling, Upgrading, Starting, Stopping, RemovingNodes, Recovering, Importing, Destroying, and any state a build adds) for longer than `check.stuck_after`; see \"Clusters stuck in an operation\" below",
		Meaning: "The cluster has stayed in one operation state (Scaling, Starting, ...) longer than check.stuck_after: its job died or hangs, and it is not checked for drift meanwhile.",
		Action:  "Find the operation's event and job in CloudStack; once understood, bring the cluster out of the state (the runbook says how for each state).",
		Advice:  "Find the operation's event and job in CloudStack, and once understood bring the cluster out of the state.",
		Anchor:  "cksclusterstuckinoperation",
		Alert:   "CKSClusterStuckInOperation", Severity: "warning",
		Rule: "Kubernetes cluster {{ $labels.cluster_name }} has stayed in one operation state (Scaling, Upgrading, Starting, ...) for longer than check.stuck_after, and is not checked for VM map drift meanwhile ({{ $labels.kind }}). The state and since when are in the finding's message on the exporter's /findings page and in cks_drift_cluster_state_since_timestamp_seconds.",
	},
	{
		Kind: KindNetworkRuleMissing, Side: SideNetwork, Subject: SubjectVMOrCluster,
		When:    "a rule CKS created on the cluster's network and needs is gone (rules are read, and their findings kept while they cannot be): a node's port-forwarding rule from its public SSH port (from 2222; etcd nodes from 50000) to port 22 (one finding per VM); the API port's load-balancer rule `api-lb` over the control VMs, or the port-forwarding rule 6443 -> 6443 (one finding for the cluster, `vm_id` empty, with what follows); on an isolated network the firewall rule of the SSH ports from 2222 and of 6443; on a VPC tier the ACL items allowing 6443 and 22 unless its ACL is default_allow. None on shared or routed networks, where CKS creates no rules; rules a tenant adds never count",
		Meaning: "A network rule CKS created for the cluster is gone: CKS's next scale, upgrade or delete of the cluster needs it and fails.",
		Action:  "Re-create the rule as CKS made it (the runbook gives the cmk commands), or find in the events who removed it.",
		Advice:  "Re-create the network rule CKS created for the cluster (its port-forwarding, firewall, load-balancer or ACL rule) before the next scale, upgrade or delete.",
		Anchor:  "network_rule_missing",
		Alert:   "CKSNetworkRuleMissing", Severity: "warning",
		Rule:   "A network rule CKS created for Kubernetes cluster {{ $labels.cluster_name }} is gone{{ if $labels.vm_name }} (the SSH port-forwarding rule of VM {{ $labels.vm_name }}, {{ $labels.vm_id }}){{ end }}; CKS's next scale, upgrade or delete needs it. The rule is named in the finding's message on the exporter's /findings page.",
		Causes: Explanation{On: CauseOnRule, Types: ruleDeletions},
	},
	{
		Kind: KindOfferingMissing, Side: SideCluster, Subject: SubjectCluster,
		When:    "the service offering CloudStack records for the cluster (from 4.21 for each node type: control, worker, etcd; a node type without its own has the cluster's) is removed or inactive; one finding per cluster naming each. Offerings are matched by uuid, read every cycle (`listServiceOfferings`, or `service_offering` in the database), and the findings kept while they cannot be read. Through the API a node type's own removed offering is not shown (CloudStack leaves it out of the answer), and before 4.19.1.0 an inactive offering reads as removed",
		Meaning: "A service offering of the cluster's nodes is removed or inactive in CloudStack: CKS's next scale of the cluster fails (it finds no offering), and so may its upgrade.",
		Action:  "Re-activate the offering, or move the cluster to an active one with scaleKubernetesCluster (serviceofferingid, or per node type from 4.21), before the next scale or upgrade.",
		Advice:  "Check the cluster's service offerings in CloudStack: re-activate the offering, or scale the cluster to an active one before its next scale or upgrade.",
		Anchor:  "offering_missing",
		Alert:   "CKSOfferingMissing", Severity: "warning",
		Rule: "A service offering CloudStack records for the nodes of Kubernetes cluster {{ $labels.cluster_name }} is removed or inactive ({{ $labels.kind }}); CKS's next scale of the cluster fails. The offering and its node types are in the finding's message on the exporter's /findings page.",
	},
}

// The kinds of drift, as Declarations declares them.
const (
	KindUnmappedVM       Kind = "unmapped_vm"
	KindMappedVMExpunged Kind = "mapped_vm_expunged"
	KindMappedVMMissing  Kind = "mapped_vm_missing"
	KindVMMapIncomplete  Kind = "vm_map_incomplete"
	// KindVMMapExcess: the map holds more worker VMs than the cluster's size (one finding per
	// cluster; cksops.go).
	KindVMMapExcess Kind = "vm_map_excess"
	// KindMappedVMNotRunning: a VM of the map is in a state other than Running, and not on its way
	// out (that is KindMappedVMExpunged; cksops.go).
	KindMappedVMNotRunning Kind = "mapped_vm_not_running"
	KindVMNotANode         Kind = "vm_not_a_node"
	KindNodeWithoutVM      Kind = "node_without_vm"
	// KindNodeVersionMismatch: a node's kubelet runs another Kubernetes version
	// (major.minor.patch) than CloudStack records for the cluster: an upgrade that CloudStack
	// shows as done while nodes still run the old kubelet, or one that stopped half-way
	// (version.go). vm_name is the node's name, vm_id the uuid of the VM it matches, if any.
	KindNodeVersionMismatch Kind = "node_version_mismatch"
	// KindStuckInOperation: the cluster has been in an operation state (Scaling, Starting, ...)
	// for longer than check.stuck_after (see MarkStates).
	KindStuckInOperation Kind = "stuck_in_operation"
	// KindNetworkRuleMissing: a rule CKS created on the cluster's network is gone (networkcheck.go);
	// vm_id is the node's VM for a node's SSH rule, empty for the cluster's own rules.
	KindNetworkRuleMissing Kind = "network_rule_missing"
	// KindOfferingMissing: a service offering CloudStack records for the cluster's nodes is
	// removed or inactive (offerings.go); one finding per cluster, naming each node type's.
	KindOfferingMissing Kind = "offering_missing"
)

// Kinds lists every kind in the order of Declarations, so that metrics carry every kind, zeros
// included, and findings sort the same everywhere.
var Kinds = kindList()

func kindList() []Kind {
	out := make([]Kind, len(Declarations))
	for i, d := range Declarations {
		out[i] = d.Kind
	}
	return out
}

// Declaration returns the kind's declaration, and false for a kind that is not declared.
func (k Kind) Declaration() (Declaration, bool) {
	for _, d := range Declarations {
		if d.Kind == k {
			return d, true
		}
	}
	return Declaration{}, false
}

// Side returns the side a kind belongs to; an undeclared kind is of the VM side.
func (k Kind) Side() Side {
	if d, ok := k.Declaration(); ok {
		return d.Side
	}
	return SideVM
}

// PerCluster reports whether findings of the kind are about the whole cluster, with no VM or
// node of their own.
func (k Kind) PerCluster() bool {
	d, _ := k.Declaration()
	return d.Subject == SubjectCluster
}

// EitherSubject reports whether a finding of the kind is about one VM or, with no VM, about the
// whole cluster (SubjectVMOrCluster).
func (k Kind) EitherSubject() bool {
	d, _ := k.Declaration()
	return d.Subject == SubjectVMOrCluster
}
