package simulator

import (
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
