package api

import (
	"slices"
	"sync"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// unmanagedLookups bounds the VMs whose events one read of the inventory asks for (each costs at
// most causePages requests), and unmanagedTries the reads that ask for one VM's: the Completed
// event is recorded when the job ends, an instant after the VM left the listing, so a VM is asked
// for at the next read once more, then taken as expunged.
const (
	unmanagedLookups = 20
	unmanagedTries   = 2
)

// unmanaged tells, through the API, an unmanaged VM of a cluster's map from an expunged one.
// unmanageVirtualMachine leaves the VM's row as an expunge does (UserVmManagerImpl
// .unmanageVMFromDB at 4.19.0.0), and createKubernetesClusterResponse then leaves it out of the
// cluster's virtualmachines as it leaves out an expunged VM: it is listed nowhere, and only its
// VM.UNMANAGE event, whose resource is the VM (from 4.17), tells them apart. So the source
// remembers the VMs each cluster's map listed at the last read; a remembered VM that the map and
// the VM list no longer show, while the cluster has fewer VMs than its nodes, has its events asked
// for by resource (listEvents resourceid, as the causes are), and a Completed VM.UNMANAGE under
// the VM's own account makes it a removed, unmanaged VM of the map (collector.MappedVM
// .Unmanaged), whose event is then the cause of its finding without another request. The memory
// is lost with the process: after a restart a VM unmanaged before it is a count gap again.
type unmanaged struct {
	mu     sync.Mutex
	mapped map[string][]knownVM // cluster id -> the VMs its map listed, and those gone being asked for
}

// knownVM is a VM a cluster's map listed: a few strings, as every VM of every cluster is one.
type knownVM struct {
	id, name string
	// account, domainID and projectID are the VM's owner as listVirtualMachines named it (for
	// OwnsEvent); empty when it named none: the cluster's owner.
	account, domainID, projectID string
	tries                        int // reads that asked for its events since it left the listing
	// event is its VM.UNMANAGE, nil until one was found.
	event *collector.CauseEvent
}

// owner is the VM's owner as OwnsEvent reads it: its own where listed, else the cluster k's.
func (vm knownVM) owner(k collector.Cluster) collector.Cluster {
	if vm.account == "" && vm.projectID == "" {
		return collector.Cluster{Account: k.Account, DomainID: k.DomainID, ProjectID: k.ProjectID}
	}
	return collector.Cluster{Account: vm.account, DomainID: vm.domainID, ProjectID: vm.projectID}
}

// mark adds to each cluster of inv its unmanaged VMs and remembers what the clusters' maps list;
// only is empty for a read of every cluster (the clusters it does not list are forgotten), else
// the id of the one cluster read again. It asks for the events of at most unmanagedLookups VMs and
// stops asking at the first failed request (the VMs are asked for at the next read).
func (u *unmanaged) mark(c *cs.CloudStackClient, inv *collector.Inventory, only string, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	listed := make(map[string]*collector.VM, len(inv.VMs))
	for i := range inv.VMs {
		listed[inv.VMs[i].ID] = &inv.VMs[i]
	}
	next := make(map[string][]knownVM, len(inv.Clusters))
	if only != "" {
		for id, vms := range u.mapped {
			if id != only {
				next[id] = vms
			}
		}
	}
	budget := unmanagedLookups
	failed := false
	lookup := func(k collector.Cluster, vm *knownVM) {
		if failed || budget == 0 || vm.tries >= unmanagedTries {
			return
		}
		e, err := findUnmanage(c, k, vm.id, vm.owner(k), now)
		if err != nil {
			failed = true // not counted: asked again at the next read
			return
		}
		budget--
		vm.tries++
		if e.ID != "" {
			vm.event = &e
		}
	}
	for i := range inv.Clusters {
		k := &inv.Clusters[i]
		keep := make([]knownVM, 0, len(k.Mapped))
		for _, m := range k.Mapped {
			vm := knownVM{id: m.ID, name: m.Name}
			if v := listed[m.ID]; v != nil {
				vm.account, vm.domainID, vm.projectID = v.Account, v.DomainID, v.ProjectID
			}
			keep = append(keep, vm)
		}
		mappedNow := len(keep)
		if gap(*k) > 0 {
			for _, vm := range u.mapped[k.ID] {
				if slices.ContainsFunc(keep[:mappedNow], func(m knownVM) bool { return m.id == vm.id }) || listed[vm.id] != nil {
					continue // still mapped, or listed: not removed
				}
				if vm.event == nil {
					lookup(*k, &vm)
				}
				if vm.event != nil {
					k.Mapped = append(k.Mapped, collector.MappedVM{ID: vm.id, Name: vm.name, State: "Expunging", Removed: true, Unmanaged: true})
				}
				if vm.event != nil || vm.tries < unmanagedTries {
					keep = append(keep, vm)
				}
			}
		}
		next[k.ID] = slices.Clip(keep)
	}
	u.mapped = next
}

// gap is how many fewer VMs the cluster's map shows than its nodes.
func gap(k collector.Cluster) int {
	return k.ControlNodes + k.WorkerNodes + k.EtcdNodes - len(k.Mapped)
}

// findUnmanage returns the VM.UNMANAGE event of the VM id of cluster k's map, zero when there is
// none: asked for by the VM as the event's resource (never by a name or a description, which
// tenants write), Completed, within collector.CauseLookBack, and recorded under the VM's own
// account (owner), as UnmanageVMInstanceCmd.getEntityOwnerId records it whoever calls it: an
// event under another account, even the root admin's, does not count.
func findUnmanage(c *cs.CloudStackClient, k collector.Cluster, id string, owner collector.Cluster, now time.Time) (collector.CauseEvent, error) {
	w := collector.CauseWant{Cluster: k, ResourceID: id, On: collector.CauseOnVM, Types: []string{collector.EventVMUnmanage}, Since: now.Add(-collector.CauseLookBack)}
	is := func(e wireEvent) bool {
		ev := causeEvent(e)
		return ev.State == "Completed" && w.Explains(ev) && owner.OwnsEvent(ev.Account, ev.DomainID, ev.ProjectID)
	}
	events, err := listCauseEvents(c, w, map[string]string{"resourceid": id, "resourcetype": string(collector.CauseOnVM)}, causePages, is)
	if err != nil {
		return collector.CauseEvent{}, err
	}
	if i := slices.IndexFunc(events, is); i >= 0 { // newest first
		return causeEvent(events[i]), nil
	}
	return collector.CauseEvent{}, nil
}

// cause returns the VM.UNMANAGE event found for a wanted finding's VM, as its cause (the look-up
// that named the VM unmanaged serves its cause too), and false when none was.
func (u *unmanaged) cause(w collector.CauseWant) (collector.Cause, bool) {
	if w.On != collector.CauseOnVM || !slices.Contains(w.Types, collector.EventVMUnmanage) {
		return collector.Cause{}, false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, vm := range u.mapped[w.Cluster.ID] {
		if vm.id == w.ResourceID && vm.event != nil && w.Explains(*vm.event) {
			return vm.event.Cause(), true
		}
	}
	return collector.Cause{}, false
}
