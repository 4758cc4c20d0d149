package collector

// The findings of what CKS's own next scale, upgrade or delete of a cluster needs of its VM map.

import (
	"fmt"
	"time"
)

// live reports whether a map row's VM exists and is not on its way out: the VMs CKS works with.
func live(m MappedVM) bool {
	return !m.Missing && !m.Removed && !expunging(m.State)
}

// compareMapExcess finds a map that holds more worker VMs than the cluster's size. The workers
// are the live VMs of the map that are not etcd or external nodes, less the cluster's control
// nodes: CKS's scale-down keeps the map's workers (neither control, etcd nor external) from index
// controlNodeCount + size - 1 on (KubernetesClusterScaleWorker.scaleDownKubernetesClusterSize at
// 4.21.0.0), so a scale-down of a cluster with several control nodes removes controlNodeCount - 1
// workers too few (apache/cloudstack#12229, 4.21 and 4.22; fixed by #12302), and the map keeps
// workers that the size does not count. Rows that are missing or expunged are other kinds and
// are not counted, so a destroyed worker and its replacement never make an excess.
func compareMapExcess(c Cluster) []Finding {
	workers := -c.ControlNodes
	for _, m := range c.Mapped {
		if live(m) && !m.Etcd && !m.External && !IsEtcdName(c, m.Name) {
			workers++
		}
	}
	extra := workers - c.WorkerNodes
	if extra <= 0 || c.WorkerNodes < 0 {
		return nil
	}
	return []Finding{{Kind: KindVMMapExcess, Message: fmt.Sprintf(
		"Kubernetes cluster %s has %d worker VMs in its VM map in CloudStack but its size is %d: %d more than CKS counts, "+
			"so its next scale starts from the wrong number of workers and leaves the extra ones out of the cluster's size",
		c.Name, workers, c.WorkerNodes, extra)}}
}

// compareNotRunning finds the live VMs of the map that are not Running (Stopped, Error, Starting,
// ...), past the grace period, in a cluster that is Running or in Alert. CloudStack's own state
// scanner moves a Running cluster with such a VM to Alert (KubernetesClusterManagerImpl's
// KubernetesClusterStatusScanner, isClusterVMsInDesiredState), and CKS's upgrade reaches every
// node over SSH (KubernetesClusterUpgradeWorker), so it fails while the VM does not run. A VM that
// is Destroyed or Expunging is mapped_vm_expunged instead.
func compareNotRunning(c Cluster, young func(time.Time) bool) []Finding {
	if c.State != "Running" && c.State != "Alert" {
		return nil
	}
	var out []Finding
	for _, m := range c.Mapped {
		if !live(m) || m.State == "Running" || young(m.Created) {
			continue
		}
		out = append(out, Finding{Kind: KindMappedVMNotRunning, VMID: m.ID, VMName: m.Name, InternalID: m.InternalID,
			Message: notRunningMessage(c.Name, m)})
	}
	return out
}

// notRunningMessage names the VM, its state and what fails while it does not run.
func notRunningMessage(cluster string, m MappedVM) string {
	state := m.State
	if state == "" {
		state = "in no known state"
	}
	return fmt.Sprintf("VM %s (%s) of Kubernetes cluster %s is %s in CloudStack, not Running: CloudStack keeps the cluster in Alert, "+
		"and its next upgrade, which reaches every node over SSH, fails until the VM is started", m.Name, m.ID, cluster, state)
}
