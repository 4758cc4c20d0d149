package cloudstacktest

import (
	"strconv"
	"strings"
)

// Release lines whose answers differ in what the inventory reads. World.Release picks one; the
// empty value answers as the newest line.
const (
	Release414 = "4.14" // virtualmachineids, masternodes only, no ipaddress, no created
	Release415 = "4.15" // virtualmachines and ipaddress; still masternodes only
	Release416 = "4.16" // controlnodes beside masternodes (4.16 and 4.17)
	Release418 = "4.18" // VPC tiers reached through a public IP of the cluster's own
	Release420 = "4.20" // clustertype (4.19 on); from 4.19.1.0: count is the total, events name their cluster
	Release422 = "4.22" // etcd and external nodes flagged per VM (4.21 on)
)

// minor returns the minor version of a release line ("4.18" -> 18); the newest for "".
func minor(release string) int {
	if release == "" {
		return 22
	}
	_, m, _ := strings.Cut(release, ".")
	n, err := strconv.Atoi(m)
	if err != nil {
		return 22
	}
	return n
}

// since reports whether the world's release line is v or newer, v given as a minor version.
func (w *World) since(v int) bool { return minor(w.Release) >= v }

// The shape of KubernetesClusterResponse by release, read from
// plugins/integrations/kubernetes-service/src/main/java/org/apache/cloudstack/api/response/
// KubernetesClusterResponse.java and KubernetesClusterManagerImpl.java:
//   - 4.14.0.0: virtualmachineids (uuids of the map's VMs that exist and are not removed),
//     masternodes, no ipaddress/ipaddressid, no created, no controlnodes;
//   - 4.15.0.0: virtualmachines (UserVmResponse with nics) and ipaddress/ipaddressid replace
//     virtualmachineids;
//   - 4.16.0.0: controlnodes beside the deprecated masternodes;
//   - 4.19: clustertype; 4.21: etcdnodes and, per VM (KubernetesUserVmResponse), isetcdnode,
//     isexternalnode and the node's Kubernetes version;
//   - kubernetesversionid from 4.14.0.0, where the cluster's version row exists;
//   - up to 4.19.0.0 listKubernetesClusters answers count = the page's length (setResponses
//     without a total, e.g. at 4.14.0.0, 4.17.0.0 and 4.19.0.0); from 4.19.1.0 the total
//     (searchAndCount and setResponses(list, count), apache/cloudstack#8701).
func (w *World) shapeCluster(j *clusterJSON, c *Cluster) {
	if !w.since(21) {
		j.EtcdNodes = nil
		for i := range j.VMs {
			j.VMs[i].IsEtcdNode, j.VMs[i].IsExternalNode = nil, nil
			j.VMs[i].KubernetesNodeVersion = ""
		}
	}
	if !w.since(19) {
		j.ClusterType = ""
	}
	if !w.since(16) {
		j.ControlNodes = nil
	}
	if !w.since(15) {
		j.IPAddress, j.IPAddressID, j.Created = "", "", ""
		ids := []string{}
		for _, id := range c.VMMap {
			if vm, ok := w.VMs[id]; ok && vm != nil && !vm.Removed {
				ids = append(ids, vm.ID)
			}
		}
		j.VMIDs, j.VMs = ids, nil
	}
}

// countIsPageLength reports whether listKubernetesClusters and listKubernetesSupportedVersions
// answer count = the page's length rather than the total: up to 4.19.0.0, so on the fake's lines
// up to 4.18 (its 4.20 line stands for 4.19.1.0 and later). KubernetesClusterManagerImpl
// .listKubernetesClusters and KubernetesVersionManagerImpl.listKubernetesSupportedVersions call
// setResponses(list) at 4.19.0.0 and setResponses(list, count) of a searchAndCount at 4.19.1.0
// (apache/cloudstack#8701).
func (w *World) countIsPageLength() bool { return !w.since(20) }
