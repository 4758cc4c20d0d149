package simulator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// The helpers below cause and undo the kinds of drift of docs/scenarios.md, the way they were
// caused by hand on a real cloud: by editing map rows and VMs, and by stopping kubelet on a node.

// DeleteMapRow deletes the map row of a cluster's VM (scenario 2) and returns what restores it.
func (s *Simulator) DeleteMapRow(clusterID, vmName string) (restore func(), err error) {
	var vmID int64
	s.CloudStack.Update(func(w *cloudstacktest.World) {
		c := clusterByID(w, clusterID)
		vm := w.VMByName(vmName)
		if c == nil || vm == nil || !slices.Contains(c.VMMap, vm.InternalID) {
			err = fmt.Errorf("%w: %s has no map row for %s", ErrNoCluster, clusterID, vmName)
			return
		}
		vmID = vm.InternalID
		c.VMMap = slices.DeleteFunc(c.VMMap, func(id int64) bool { return id == vmID })
	})
	if err != nil {
		return nil, err
	}
	return func() {
		s.CloudStack.Update(func(w *cloudstacktest.World) {
			if c := clusterByID(w, clusterID); c != nil && !slices.Contains(c.VMMap, vmID) {
				c.VMMap = append(c.VMMap, vmID)
			}
		})
	}, nil
}

// StopKubelet removes a node from the cluster's Kubernetes node list while its VM keeps running
// (scenario 4) and returns what brings the node back.
func (s *Simulator) StopKubelet(clusterID, vmName string) (restart func(), err error) {
	node := s.Node(clusterID)
	if node == nil {
		return nil, ErrNoCluster
	}
	var names []string
	var all []string
	s.CloudStack.Read(func(w *cloudstacktest.World) {
		if c := clusterByID(w, clusterID); c != nil {
			for _, id := range c.VMMap {
				if vm := w.VMs[id]; vm != nil && !vm.Removed && !strings.Contains(vm.Name, "-etcd") {
					all = append(all, strings.ToLower(vm.Name))
				}
			}
		}
	})
	for _, n := range all {
		if n != strings.ToLower(vmName) {
			names = append(names, n)
		}
	}
	node.SetNodes(names...)
	return func() { node.SetNodes(all...) }, nil
}

// AddStrayVM deploys a VM named as a node of the cluster in the cluster's account but outside
// its map (scenario 7), created at created, and returns its name and what expunges it.
func (s *Simulator) AddStrayVM(clusterID string, created time.Time) (name string, expunge func(), err error) {
	var vm *cloudstacktest.VM
	err = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		name = fmt.Sprintf("%s-node-%x", nodePrefix(c.Name), created.UnixMilli())
		vm = w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Account: c.Account, DomainID: c.DomainID, Domain: c.Domain,
			ProjectID: c.ProjectID, Project: c.Project, ZoneID: c.ZoneID, ZoneName: c.ZoneName, NetworkID: "other-net", Created: created})
	})
	if err != nil {
		return "", nil, err
	}
	return name, func() {
		s.CloudStack.Update(func(w *cloudstacktest.World) { w.VMs[vm.InternalID].Removed = true })
	}, nil
}

// StopVM stops a VM of a cluster's map, as an operator or HA does, and moves the cluster to Alert,
// as CloudStack's state scanner does for a cluster whose VMs are not all Running (#12699). The
// VM's node stays in Kubernetes' list (NotReady). It returns what starts the VM again.
func (s *Simulator) StopVM(clusterID, vmName string) (start func(), err error) {
	var unmapped error
	err = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		vm := w.VMByName(vmName)
		if vm == nil || !slices.Contains(c.VMMap, vm.InternalID) {
			unmapped = fmt.Errorf("%w: %s has no map row for %s", ErrNoCluster, clusterID, vmName)
			return
		}
		vm.State, c.State = "Stopped", "Alert"
	})
	if err = cmp.Or(err, unmapped); err != nil {
		return nil, err
	}
	return func() {
		_ = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
			w.VMByName(vmName).State, c.State = "Running", "Running"
		})
	}, nil
}

// ScaleDownLeavingWorkers records a scale-down of a cluster to size workers while its map keeps
// every worker VM, as a scale-down of a cluster with several control nodes does on 4.21 and 4.22
// (apache/cloudstack#12229: controlNodeCount - 1 workers too few removed). It returns what
// records the size back (the cluster scaled to the workers its map holds).
func (s *Simulator) ScaleDownLeavingWorkers(clusterID string, size int64) (scaleBack func(), err error) {
	var before int64
	err = s.updateCluster(clusterID, func(_ *cloudstacktest.World, c *cloudstacktest.Cluster) { before, c.Size = c.Size, size })
	if err != nil {
		return nil, err
	}
	return func() {
		_ = s.updateCluster(clusterID, func(_ *cloudstacktest.World, c *cloudstacktest.Cluster) { c.Size = before })
	}, nil
}

// AddDeployedVM adds a VM that CKS deployed for the cluster (user_vm_type cksnode, vmtype from
// 4.20) in the cluster's account or project, in no map and named name, as a tenant may rename a
// node VM, created at created. It returns what expunges it.
func (s *Simulator) AddDeployedVM(clusterID, name string, created time.Time) (expunge func(), err error) {
	var vm *cloudstacktest.VM
	err = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		vm = w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Type: cloudstacktest.CKSNodeType, Account: c.Account,
			DomainID: c.DomainID, Domain: c.Domain, ProjectID: c.ProjectID, Project: c.Project, ZoneID: c.ZoneID,
			ZoneName: c.ZoneName, NetworkID: c.NetworkID, Created: created})
	})
	if err != nil {
		return nil, err
	}
	return func() {
		s.CloudStack.Update(func(w *cloudstacktest.World) { w.VMs[vm.InternalID].Removed = true })
	}, nil
}

// SetClusterState sets a cluster's state, as an operation (Scaling, Upgrading, ...) does.
func (s *Simulator) SetClusterState(clusterID, state string) error {
	return s.updateCluster(clusterID, func(_ *cloudstacktest.World, c *cloudstacktest.Cluster) { c.State = state })
}

// updateCluster changes the cloud's cluster clusterID with fn, under the fake's lock;
// ErrNoCluster when there is none.
func (s *Simulator) updateCluster(clusterID string, fn func(w *cloudstacktest.World, c *cloudstacktest.Cluster)) error {
	var err error
	s.CloudStack.Update(func(w *cloudstacktest.World) {
		c := clusterByID(w, clusterID)
		if c == nil {
			err = ErrNoCluster
			return
		}
		fn(w, c)
	})
	return err
}

func clusterByID(w *cloudstacktest.World, id string) *cloudstacktest.Cluster {
	for _, c := range w.Clusters {
		if c != nil && c.ID == id {
			return c
		}
	}
	return nil
}

// RemoveServiceOffering records the cluster's service offering as deleted (deleteServiceOffering
// sets its removed column; CloudStack keeps the cluster's service_offering_id), giving the cluster
// an offering named small first when it has none. It returns what moves the cluster to a new
// active offering, medium, as the runbook's scale of the cluster to another offering does.
func (s *Simulator) RemoveServiceOffering(clusterID string) (replace func(), err error) {
	err = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
		var o *cloudstacktest.ServiceOffering
		for _, x := range w.ServiceOfferings {
			if x != nil && x.ID == c.ServiceOfferingID {
				o = x
			}
		}
		if o == nil {
			o = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "small"})
			c.ServiceOfferingID = o.ID
		}
		o.Removed = true
	})
	if err != nil {
		return nil, err
	}
	return func() {
		_ = s.updateCluster(clusterID, func(w *cloudstacktest.World, c *cloudstacktest.Cluster) {
			c.ServiceOfferingID = w.AddServiceOffering(cloudstacktest.ServiceOffering{Name: "medium"}).ID
		})
	}, nil
}
