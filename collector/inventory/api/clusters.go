package api

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// loginUserDetail is the VM detail in which CKS keeps the user it logs in to a cluster's nodes as
// (VmDetailConstants.CKS_CONTROL_NODE_LOGIN_USER, read by KubernetesClusterActionWorker
// .getControlNodeLoginUser at 4.17.0.0; schema-41600to41610.sql writes "core" for every node of the
// clusters created before). UserVmJoinDaoImpl puts every displayed detail in a VM's "details",
// whatever details= asks for (4.17.0.0).
const loginUserDetail = "controlNodeLoginUser"

// clusterRow is a listed cluster with what its SSH target needs once the rules are known.
type clusterRow struct {
	cluster     collector.Cluster
	ipAddress   string
	ipAddressID string
	// vmIDs is 4.14's virtualmachineids: the map as uuids only, joined with the VM list.
	vmIDs  []string
	legacy bool // the answer had virtualmachineids instead of virtualmachines (4.14)

	versionID string // kubernetesversionid: the cluster's Kubernetes version

	// offeringID and offeringName are serviceofferingid and serviceofferingname: the cluster's
	// offering, also once it is removed.
	offeringID, offeringName string

	controlID   string // the first control VM; empty when there is none
	controlNIC  string // its address on the cluster's network
	controlUser string // its controlNodeLoginUser detail
}

func (in strs) clusterRow(k *wireCluster) clusterRow {
	c := collector.Cluster{
		ID: string(k.ID), Name: string(k.Name), State: in.of(k.State),
		ClusterType: collector.ClusterTypeOrDefault(in.of(k.ClusterType)),
		ZoneID:      in.of(k.ZoneID), ZoneName: in.of(k.ZoneName), Account: in.of(k.Account),
		DomainID: in.of(k.DomainID), Domain: in.of(k.Domain), ProjectID: in.of(k.ProjectID),
		Project: in.of(k.Project), NetworkID: string(k.NetworkID), Created: cloudstackapi.ParseDate(string(k.Created)),
		ControlNodes: int(k.ControlNodes), WorkerNodes: int(k.Size), EtcdNodes: int(k.EtcdNodes),
		Offerings: collector.NodeOfferings(in.of(k.ServiceOfferingID), map[string]string{collector.NodeControl: in.of(k.ControlOfferingID),
			collector.NodeWorker: in.of(k.WorkerOfferingID), collector.NodeEtcd: in.of(k.EtcdOfferingID)}, int(k.EtcdNodes)),
	}
	if c.ControlNodes == 0 { // releases before 4.16 call them master nodes
		c.ControlNodes = int(k.MasterNodes)
	}
	row := clusterRow{cluster: c, ipAddress: string(k.IPAddress), ipAddressID: string(k.IPAddressID),
		versionID: string(k.KubernetesVersionID), offeringID: string(k.ServiceOfferingID), offeringName: string(k.ServiceOfferingName)}
	if k.VMs == nil && k.VMIDs != nil {
		row.legacy = true
		for _, id := range *k.VMIDs {
			if id != "" {
				row.vmIDs = append(row.vmIDs, string(id))
			}
		}
		return row
	}
	var vms []wireVM
	if k.VMs != nil {
		vms = *k.VMs
	}
	var candidates []collector.ControlCandidate
	var entries []*wireVM
	for i := range vms {
		v := &vms[i]
		if v.ID == "" {
			continue // an entry that could not be read, or a null
		}
		m := collector.MappedVM{ID: in.of(v.ID), Name: in.of(v.Name), State: in.of(v.State),
			Created: cloudstackapi.ParseDate(string(v.Created)), External: bool(v.External),
			Etcd:              bool(v.Etcd) || collector.IsEtcdName(row.cluster, string(v.Name)),
			KubernetesVersion: in.of(v.NodeVersion)}
		row.cluster.Mapped = append(row.cluster.Mapped, m)
		entries = append(entries, v)
		candidates = append(candidates, candidate(m))
	}
	if i := collector.FirstControl(row.cluster, candidates, false); i >= 0 {
		v := entries[i]
		row.controlID, row.controlNIC, row.controlUser = string(v.ID), nicAddress(v.NICs, row.cluster.NetworkID), loginUser(v)
	}
	return row
}

// joinLegacy builds the map of 4.14 clusters from their VM uuids and the VM list, as
// createKubernetesClusterResponse at 4.14.0.0 lists them (a VM that is not found is left out, as
// userVmDao.findById leaves out expunged ones), and picks their control VM.
func joinLegacy(clusters []clusterRow, byID map[string]*vmRow) {
	for i := range clusters {
		r := &clusters[i]
		if !r.legacy {
			continue
		}
		var rows []*vmRow
		var candidates []collector.ControlCandidate
		for _, id := range r.vmIDs {
			v := byID[id]
			if v == nil {
				continue
			}
			m := collector.MappedVM{ID: v.vm.ID, Name: v.vm.Name, State: v.vm.State, Created: v.vm.Created,
				Etcd: collector.IsEtcdName(r.cluster, v.vm.Name)}
			r.cluster.Mapped = append(r.cluster.Mapped, m)
			rows = append(rows, v)
			candidates = append(candidates, candidate(m))
		}
		r.vmIDs = nil
		if j := collector.FirstControl(r.cluster, candidates, false); j >= 0 {
			r.controlID, r.controlUser = rows[j].vm.ID, rows[j].loginUser
		}
	}
}

func candidate(m collector.MappedVM) collector.ControlCandidate {
	return collector.ControlCandidate{Name: m.Name, State: m.State, Etcd: m.Etcd, External: m.External}
}

func loginUser(v *wireVM) string {
	return string(v.Details[loginUserDetail])
}

func nicAddress(nics []wireNIC, networkID string) string {
	for _, n := range nics {
		if string(n.NetworkID) == networkID && n.IPAddress != "" {
			return string(n.IPAddress)
		}
	}
	for _, n := range nics {
		if n.IsDefault && n.IPAddress != "" {
			return string(n.IPAddress)
		}
	}
	return ""
}
