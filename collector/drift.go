package collector

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result holds the findings of one cluster, per side, in a stable order.
type Result struct {
	VM   []Finding
	Node []Finding
}

// VM states in which a mapped VM has been or is being expunged.
func expunging(state string) bool {
	return state == "Destroyed" || state == "Expunging"
}

// Compare is the drift check of one cluster: a pure function of the cluster with its VM map, the
// inventory's VMs (through idx), the Kubernetes nodes, the time and the grace period. VMs younger
// than grace are never flagged, so that VMs being created are not reported; the node side is
// compared only when the nodes were read (NodeList.Read).
func Compare(c Cluster, idx *Index, nodes NodeList, now time.Time, grace time.Duration) Result {
	young := func(created time.Time) bool { return !created.IsZero() && now.Sub(created) < grace }
	// The cluster's unmapped VMs: those named as its nodes, and those CloudStack records as
	// deployed by CKS for its owner whatever their names (Index.DeployedUnmapped).
	named := idx.NamedAsNodes(c)
	deployed := idx.DeployedUnmapped(c)
	var res Result

	visible, removed := 0, 0
	for _, m := range c.Mapped {
		switch {
		case m.Missing:
			id := strconv.FormatInt(m.InternalID, 10)
			res.VM = append(res.VM, Finding{Kind: KindMappedVMMissing, VMID: id, InternalID: m.InternalID,
				Message: fmt.Sprintf("VM with ID %s is one of the VMs of Kubernetes cluster %s in CloudStack, but does not exist", id, c.Name)})
			continue
		case (m.Removed || expunging(m.State)) && !young(m.Created):
			res.VM = append(res.VM, Finding{Kind: KindMappedVMExpunged, VMID: m.ID, VMName: m.Name, InternalID: m.InternalID,
				Message: expungedMessage(m, c.Name)})
		}
		if m.Removed {
			removed++
		} else {
			visible++
		}
	}
	for _, vm := range named {
		if expunging(vm.State) || young(vm.Created) {
			continue
		}
		res.VM = append(res.VM, Finding{Kind: KindUnmappedVM, VMID: vm.ID, VMName: vm.Name,
			Message: fmt.Sprintf("VM %s (%s, %s) is named as a node of Kubernetes cluster %s but is not one of its VMs in CloudStack", vm.Name, vm.ID, vm.State, c.Name)})
	}
	for _, vm := range deployed {
		if expunging(vm.State) || young(vm.Created) {
			continue
		}
		res.VM = append(res.VM, Finding{Kind: KindUnmappedVM, VMID: vm.ID, VMName: vm.Name, Message: deployedMessage(*vm, c.Name)})
	}
	named = append(named[:len(named):len(named)], deployed...)
	if !c.MapRowsVisible {
		// Through the API a dangling map row only shows as a count gap; VMs named as nodes but
		// missing from the map, and removed VMs the source still names (an unmanaged VM, told by
		// its event), explain part of it and are reported as such.
		want := c.ControlNodes + c.WorkerNodes + c.EtcdNodes
		if k := want - visible - removed - len(named); k > 0 {
			res.VM = append(res.VM, Finding{Kind: KindVMMapIncomplete,
				Message: fmt.Sprintf("Kubernetes cluster %s should have %d VMs but its VM map in CloudStack shows %d: %d missing or expunged", c.Name, want, visible, k)})
		}
	}

	res.VM = append(res.VM, compareMapExcess(c)...)
	res.VM = append(res.VM, compareNotRunning(c, young)...)

	if nodes.Read() {
		res.Node = compareNodes(c, named, nodes.Names, young)
		res.Node = append(res.Node, compareVersions(c, named, nodes, young)...)
	}
	sortFindings(res.VM)
	sortFindings(res.Node)
	return res
}

// expungedMessage is the message of a mapped VM that is gone or going: expunged, or unmanaged,
// which CloudStack records the same way but for its VM.UNMANAGE event. An unmanaged node keeps
// running outside CloudStack; CloudStack keeps the cluster in Alert and deleting the cluster
// fails (apache/cloudstack#12783).
func expungedMessage(m MappedVM, cluster string) string {
	if m.Unmanaged {
		return fmt.Sprintf("VM %s (%s) is one of the VMs of Kubernetes cluster %s in CloudStack, but was unmanaged (unmanageVirtualMachine): "+
			"it runs outside CloudStack, CloudStack keeps the cluster in Alert, and deleting the cluster fails until the VM's map row is removed", m.Name, m.ID, cluster)
	}
	return fmt.Sprintf("VM %s (%s) is one of the VMs of Kubernetes cluster %s in CloudStack, but has been or is being expunged", m.Name, m.ID, cluster)
}

// deployedMessage is the message of an unmapped VM that CloudStack records as deployed by CKS
// but that is named as no node of the cluster.
func deployedMessage(vm VM, cluster string) string {
	return fmt.Sprintf("VM %s (%s, %s) was deployed by CKS (vmtype cksnode) for the owner of Kubernetes cluster %s but is not one of the VMs of any cluster in CloudStack: "+
		"no scale, upgrade or delete of the cluster will include it", vm.Name, vm.ID, vm.State, cluster)
}

// compareNodes is the node side: running VMs of the cluster that Kubernetes does not know, and
// Kubernetes nodes that match no VM of the cluster, mapped or named as a node.
func compareNodes(c Cluster, named []*VM, nodeNames []string, young func(time.Time) bool) []Finding {
	nodes := make(map[string]string, len(nodeNames))
	for _, n := range nodeNames {
		nodes[nodeName(n)] = n
	}
	vms := make(map[string]bool, len(c.Mapped)+len(named))
	var out []Finding
	for _, m := range c.Mapped {
		if m.Missing || m.Removed {
			continue
		}
		name := strings.ToLower(m.Name)
		vms[name] = true
		if m.State != "Running" || young(m.Created) || m.Etcd || IsEtcdName(c, m.Name) {
			continue
		}
		if _, ok := nodes[name]; !ok {
			out = append(out, Finding{Kind: KindVMNotANode, VMID: m.ID, VMName: m.Name,
				Message: fmt.Sprintf("VM %s (%s) of Kubernetes cluster %s is running but is not a Kubernetes node of the cluster", m.Name, m.ID, c.Name)})
		}
	}
	for _, vm := range named {
		vms[strings.ToLower(vm.Name)] = true
	}
	for key, node := range nodes {
		if !vms[key] {
			out = append(out, Finding{Kind: KindNodeWithoutVM, VMName: node,
				Message: fmt.Sprintf("Kubernetes node %s of cluster %s has no VM in CloudStack", node, c.Name)})
		}
	}
	return out
}

func sortFindings(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Kind != fs[j].Kind {
			return kindOrder(fs[i].Kind) < kindOrder(fs[j].Kind)
		}
		return fs[i].Key() < fs[j].Key()
	})
}

func kindOrder(k Kind) int {
	for i, kk := range Kinds {
		if kk == k {
			return i
		}
	}
	return len(Kinds)
}
