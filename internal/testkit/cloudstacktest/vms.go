package cloudstacktest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// vmJSON is the part of CloudStack's UserVmResponse the fake fills; omitempty drops what the
// world leaves empty, as CloudStack drops null fields.
type vmJSON struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	DisplayName string    `json:"displayname,omitempty"`
	State       string    `json:"state,omitempty"`
	Created     string    `json:"created,omitempty"`
	Account     string    `json:"account,omitempty"`
	DomainID    string    `json:"domainid,omitempty"`
	Domain      string    `json:"domain,omitempty"`
	ProjectID   string    `json:"projectid,omitempty"`
	Project     string    `json:"project,omitempty"`
	ZoneID      string    `json:"zoneid,omitempty"`
	ZoneName    string    `json:"zonename,omitempty"`
	NICs        []nicJSON `json:"nic,omitempty"`
	// Details are the VM's displayed details (user_vm_details with display=1), which
	// UserVmJoinDaoImpl adds whatever details= asks for.
	Details map[string]string `json:"details,omitempty"`
	// IsEtcdNode and IsExternalNode are KubernetesUserVmResponse's flags (4.21 on), sent only in a
	// cluster's virtualmachines.
	IsEtcdNode     *bool `json:"isetcdnode,omitempty"`
	IsExternalNode *bool `json:"isexternalnode,omitempty"`
	// KubernetesNodeVersion is KubernetesUserVmResponse's node version (4.21 on: the map row's
	// kubernetes_node_version), under the name the exporter reads (see its wireVM).
	KubernetesNodeVersion string `json:"kubernetesnodeversion,omitempty"`
	// VMType is UserVmResponse's vmtype (ApiConstants.VM_TYPE, since 4.20.0): the VM's
	// user_vm_type, "UserVM" unless a service deployed it ("cksnode").
	VMType string `json:"vmtype,omitempty"`
}

// CKSNodeType is the user_vm_type of the VMs CKS deploys (UserVmManager.CKS_NODE).
const CKSNodeType = "cksnode"

// vmJSONOf is a VM's UserVmResponse as the world's release answers it.
func (w *World) vmJSONOf(vm *VM) vmJSON {
	j := newVMJSON(vm)
	if w.since(20) {
		j.VMType = cmp.Or(vm.Type, "UserVM")
	}
	return j
}

type nicJSON struct {
	ID        string `json:"id"`
	NetworkID string `json:"networkid,omitempty"`
	IPAddress string `json:"ipaddress,omitempty"`
	IsDefault bool   `json:"isdefault"`
	// ExtraDHCPOptions are NicExtraDhcpOptionResponse objects, which cloudstack-go v2.19.0 declares
	// as []string.
	ExtraDHCPOptions []extraDHCPJSON `json:"extradhcpoption,omitempty"`
}

type extraDHCPJSON struct {
	ID    string `json:"id"`
	NicID string `json:"nicid"`
	Name  string `json:"extradhcpoptionname"`
	Code  int    `json:"extradhcpoptioncode"`
	Value string `json:"extradhcpvalue"`
}

func newVMJSON(vm *VM) vmJSON {
	j := vmJSON{
		ID: vm.ID, Name: vm.Name, DisplayName: vm.DisplayName, State: vm.State,
		Created: formatDate(vm.Created), Account: vm.Account, DomainID: vm.DomainID, Domain: vm.Domain,
		ProjectID: vm.ProjectID, Project: vm.Project, ZoneID: vm.ZoneID, ZoneName: vm.ZoneName,
		Details: vm.Details,
	}
	if vm.NetworkID != "" || vm.IPAddress != "" {
		// One default NIC; its id is derived from the VM's so answers stay reproducible.
		nicID := fmt.Sprintf("0000a1c0-0000-4000-8000-%012x", vm.InternalID)
		n := nicJSON{ID: nicID, NetworkID: vm.NetworkID, IPAddress: vm.IPAddress, IsDefault: true}
		for i, o := range vm.ExtraDHCPOptions {
			n.ExtraDHCPOptions = append(n.ExtraDHCPOptions, extraDHCPJSON{
				ID: fmt.Sprintf("0000d4c0-0000-4000-8000-%08x%04x", vm.InternalID, i), NicID: nicID,
				Name: o.Name, Code: o.Code, Value: o.Value})
		}
		j.NICs = []nicJSON{n}
	}
	for i, o := range vm.OtherNICs {
		if !o.Removed {
			j.NICs = append(j.NICs, nicJSON{ID: fmt.Sprintf("0000a1c0-0000-4000-8000-%08x%04x", vm.InternalID, i+1),
				NetworkID: o.NetworkID, IPAddress: o.IPAddress})
		}
	}
	return j
}

// listVirtualMachines lists user VMs that are not expunged: admins see Destroyed and Expunging ones
// too. Filters: id, ids, name (exact, as in current CloudStack), state (or "present" for all but
// Destroyed and Expunging), keyword (substring of name or display name), zoneid, networkid.
// details=min and other display options are accepted and change nothing.
func (s *Server) listVirtualMachines(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	ids := listParam(p, "ids")
	state := p.Get("state")
	// The parameters are read once, not once per VM: the scale benchmark lists tens of
	// thousands of VMs per call.
	visible := s.visibility(p)
	id, name, keyword, zoneID, networkID := p.Get("id"), p.Get("name"), p.Get("keyword"), p.Get("zoneid"), p.Get("networkid")
	var out []*VM
	for _, vm := range s.world.sortedVMs() {
		switch {
		case vm.Removed || vm.System:
		case !visible(vm.Account, vm.ProjectID):
		case id != "" && vm.ID != id:
		case len(ids) > 0 && !slices.Contains(ids, vm.ID):
		case !matchFold(name, vm.Name):
		case !vmStateMatches(state, vm.State):
		case !containsFold(keyword, vm.Name, vm.DisplayName):
		case zoneID != "" && vm.ZoneID != zoneID:
		case networkID != "" && vm.NetworkID != networkID:
		default:
			out = append(out, vm)
		}
	}
	return listAnswerOf(r, win, "virtualmachine", out, s.world.vmJSONOf), nil
}

// vmStateMatches applies listVirtualMachines' state filter; "present" is CloudStack's shorthand
// for every state but Destroyed and Expunging.
func vmStateMatches(filter, state string) bool {
	switch {
	case filter == "":
		return true
	case strings.EqualFold(filter, "present"):
		return state != "Destroyed" && state != "Expunging"
	default:
		return strings.EqualFold(filter, state)
	}
}
