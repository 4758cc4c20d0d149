package cloudstacktest

import "strconv"

// pfRuleJSON is CloudStack's FirewallRuleResponse for a port-forwarding rule. Ports are strings
// on the wire (cloudstack-go declares them string), and the end ports repeat the start ports for
// the single-port rules CKS creates.
type pfRuleJSON struct {
	ID                        string `json:"id"`
	IPAddressID               string `json:"ipaddressid,omitempty"`
	IPAddress                 string `json:"ipaddress,omitempty"`
	PrivatePort               string `json:"privateport"`
	PrivateEndPort            string `json:"privateendport"`
	PublicPort                string `json:"publicport"`
	PublicEndPort             string `json:"publicendport"`
	Protocol                  string `json:"protocol"`
	VirtualMachineID          string `json:"virtualmachineid,omitempty"`
	VirtualMachineName        string `json:"virtualmachinename,omitempty"`
	VirtualMachineDisplayName string `json:"virtualmachinedisplayname,omitempty"`
	VMGuestIP                 string `json:"vmguestip,omitempty"`
	State                     string `json:"state"`
	NetworkID                 string `json:"networkid,omitempty"`
	ForDisplay                bool   `json:"fordisplay"`
}

// listPortForwardingRules lists rules in creation order under the admin ACL. Filters:
// ipaddressid, id, networkid. The VM name comes from vm_instance; a rule pointing at an expunged
// or unknown VM is still listed, without a name.
func (s *Server) listPortForwardingRules(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*PortForwardingRule
	for _, rule := range s.world.PortForwardingRules {
		switch {
		case rule == nil:
		case !s.visible(p, rule.Account, rule.ProjectID):
		case p.Get("id") != "" && rule.ID != p.Get("id"):
		case p.Get("ipaddressid") != "" && rule.IPAddressID != p.Get("ipaddressid"):
		case p.Get("networkid") != "" && rule.NetworkID != p.Get("networkid"):
		default:
			out = append(out, rule)
		}
	}
	// The VM names come from vm_instance: look up only the VMs of the page's rules.
	var page []*PortForwardingRule
	if win.start < len(out) {
		end := len(out)
		if win.limit >= 0 {
			end = min(end, win.start+win.limit)
		}
		page = out[win.start:end]
	}
	byUUID := make(map[string]*VM, len(page))
	for _, rule := range page {
		byUUID[rule.VirtualMachineID] = nil
	}
	for _, vm := range s.world.sortedVMs() {
		if _, wanted := byUUID[vm.ID]; wanted && !vm.Removed {
			byUUID[vm.ID] = vm
		}
	}
	return listAnswerOf(r, win, "portforwardingrule", out, func(rule *PortForwardingRule) pfRuleJSON {
		j := pfRuleJSON{
			ID: rule.ID, IPAddressID: rule.IPAddressID, IPAddress: rule.IPAddress,
			PrivatePort: strconv.Itoa(rule.PrivatePort), PrivateEndPort: strconv.Itoa(rule.PrivatePort),
			PublicPort: strconv.Itoa(rule.PublicPort), PublicEndPort: strconv.Itoa(rule.PublicPort),
			Protocol: "tcp", VirtualMachineID: rule.VirtualMachineID, State: "Active",
			NetworkID: rule.NetworkID, ForDisplay: true,
		}
		if vm := byUUID[rule.VirtualMachineID]; vm != nil {
			j.VirtualMachineName, j.VirtualMachineDisplayName, j.VMGuestIP = vm.Name, vm.DisplayName, vm.IPAddress
		}
		return j
	}), nil
}
