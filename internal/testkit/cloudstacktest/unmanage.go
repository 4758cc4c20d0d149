package cloudstacktest

import (
	"fmt"
	"time"
)

// Unmanage removes vm from CloudStack as unmanageVirtualMachine does: the VM keeps running on its
// hypervisor, and its row is left as an expunge leaves it (state Expunging, removed set,
// UserVmManagerImpl.unmanageVMFromDB at 4.19.0.0), so that no API lists it any more, not even in
// its cluster's VM map. The command is asynchronous and admin-only; CloudStack records its
// Scheduled, Started and Completed VM.UNMANAGE events under the VM's own account
// (UnmanageVMInstanceCmd.getEntityOwnerId) with the root admin as their user, described as
// "unmanaging VM. VM ID = <internal id>", and from 4.17 with the VM as their resource
// (getApiResourceType VirtualMachine and getApiResourceId, both at 4.17.0.0 c56220fcf2 and
// 4.21.0.0 f9513b47bf; 4.16.1.1 ebfdef5777 has neither). It returns the Completed event.
func (w *World) Unmanage(vm *VM, at time.Time) *Event {
	vm.State, vm.Removed = "Expunging", true
	var completed *Event
	for i, state := range []string{"Scheduled", "Started", "Completed"} {
		e := Event{Type: "VM.UNMANAGE", State: state, Username: AdminAccount,
			Description: fmt.Sprintf("unmanaging VM. VM ID = %d", vm.InternalID),
			Account:     vm.Account, DomainID: vm.DomainID, Domain: vm.Domain, ProjectID: vm.ProjectID,
			Created: at.UTC().Truncate(time.Second).Add(time.Duration(i-2) * time.Second)}
		if w.since(17) {
			e.ResourceID, e.ResourceType = vm.ID, "VirtualMachine"
		}
		completed = w.AddEvent(e)
	}
	return completed
}
