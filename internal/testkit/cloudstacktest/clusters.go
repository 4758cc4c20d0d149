package cloudstacktest

import "encoding/json"

// clusterJSON is the part of CloudStack's KubernetesClusterResponse the fake fills.
type clusterJSON struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	State        string   `json:"state,omitempty"`
	ClusterType  string   `json:"clustertype,omitempty"`
	ZoneID       string   `json:"zoneid,omitempty"`
	ZoneName     string   `json:"zonename,omitempty"`
	Account      string   `json:"account,omitempty"`
	DomainID     string   `json:"domainid,omitempty"`
	Domain       string   `json:"domain,omitempty"`
	ProjectID    string   `json:"projectid,omitempty"`
	Project      string   `json:"project,omitempty"`
	ControlNodes *int64   `json:"controlnodes,omitempty"`
	MasterNodes  int64    `json:"masternodes"` // the pre-4.16 name, still sent
	Size         int64    `json:"size"`
	EtcdNodes    *int64   `json:"etcdnodes,omitempty"`
	NetworkID    string   `json:"networkid,omitempty"`
	IPAddress    string   `json:"ipaddress,omitempty"`
	IPAddressID  string   `json:"ipaddressid,omitempty"`
	Endpoint     string   `json:"endpoint,omitempty"`
	KeyPair      string   `json:"keypair,omitempty"`
	Created      string   `json:"created,omitempty"`
	VMs          []vmJSON `json:"virtualmachines"` // [] when empty, absent only in 4.14
	VMIDs        []string `json:"virtualmachineids,omitempty"`

	KubernetesVersionID   string `json:"kubernetesversionid,omitempty"`
	KubernetesVersionName string `json:"kubernetesversionname,omitempty"`

	ServiceOfferingID   string `json:"serviceofferingid,omitempty"`
	ServiceOfferingName string `json:"serviceofferingname,omitempty"`
	ControlOfferingID   string `json:"controlofferingid,omitempty"`
	ControlOfferingName string `json:"controlofferingname,omitempty"`
	WorkerOfferingID    string `json:"workerofferingid,omitempty"`
	WorkerOfferingName  string `json:"workerofferingname,omitempty"`
	EtcdOfferingID      string `json:"etcdofferingid,omitempty"`
	EtcdOfferingName    string `json:"etcdofferingname,omitempty"`
}

// MarshalJSON leaves virtualmachines out where the release sends virtualmachineids (4.14).
func (j clusterJSON) MarshalJSON() ([]byte, error) {
	type plain clusterJSON
	if j.VMIDs != nil {
		return json.Marshal(struct {
			plain
			VMs []vmJSON `json:"virtualmachines,omitempty"`
		}{plain: plain(j)})
	}
	return json.Marshal(plain(j))
}

// clusterVMs builds the virtualmachines list as KubernetesClusterManagerImpl does: each
// kubernetes_cluster_vm_map row is looked up in vm_instance, and rows whose VM is expunged
// (removed) or gone are skipped without a word; Destroyed and Expunging VMs that are not yet
// removed are listed with their state. The ACL does not apply to them.
func (w *World) clusterVMs(c *Cluster) []vmJSON {
	out := []vmJSON{}
	for _, id := range c.VMMap {
		vm, ok := w.VMs[id]
		if !ok || vm == nil || vm.Removed {
			continue
		}
		j := w.vmJSONOf(vm)
		etcd, external := vm.EtcdNode, vm.ExternalNode
		j.IsEtcdNode, j.IsExternalNode = &etcd, &external
		j.KubernetesNodeVersion = vm.KubernetesNodeVersion
		out = append(out, j)
	}
	return out
}

func (w *World) newClusterJSON(c *Cluster) clusterJSON {
	endpoint := c.Endpoint
	if endpoint == "" && c.IPAddress != "" {
		endpoint = "https://" + c.IPAddress + ":6443/"
	}
	control, etcd := c.ControlNodes, c.EtcdNodes
	j := clusterJSON{
		ID: c.ID, Name: c.Name, State: c.State, ClusterType: c.ClusterType,
		ZoneID: c.ZoneID, ZoneName: c.ZoneName, Account: c.Account, DomainID: c.DomainID,
		Domain: c.Domain, ProjectID: c.ProjectID, Project: c.Project,
		ControlNodes: &control, MasterNodes: c.ControlNodes, Size: c.Size, EtcdNodes: &etcd,
		NetworkID: c.NetworkID, IPAddress: c.IPAddress, IPAddressID: c.IPAddressID,
		Endpoint: endpoint, KeyPair: c.KeyPair, Created: formatDate(c.Created),
		VMs: w.clusterVMs(c),
	}
	if v := w.kubernetesVersion(c.KubernetesVersionID); v != nil {
		j.KubernetesVersionID, j.KubernetesVersionName = v.ID, v.Name
	}
	w.shapeOfferings(&j, c)
	w.shapeCluster(&j, c)
	return j
}

// listKubernetesClusters lists clusters that are not removed in id order under the admin ACL. Filters: id, name and
// state (compared without case), clustertype, keyword (substring of the name).
func (s *Server) listKubernetesClusters(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*Cluster
	for _, c := range s.world.Clusters {
		switch {
		case c == nil || c.Removed:
		case !s.visible(p, c.Account, c.ProjectID):
		case p.Get("id") != "" && c.ID != p.Get("id"):
		case !matchFold(p.Get("name"), c.Name):
		case !matchFold(p.Get("state"), c.State):
		case !matchFold(p.Get("clustertype"), c.ClusterType):
		case !containsFold(p.Get("keyword"), c.Name):
		default:
			out = append(out, c)
		}
	}
	answer := listAnswerOf(r, win, "kubernetescluster", out, s.world.newClusterJSON)
	if s.world.countIsPageLength() && answer["count"] != nil {
		answer["count"] = len(answer["kubernetescluster"].([]any)) + r.countDelta
	}
	return answer, nil
}
