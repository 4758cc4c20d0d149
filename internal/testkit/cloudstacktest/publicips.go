package cloudstacktest

// ipJSON is the part of CloudStack's IPAddressResponse the fake fills.
type ipJSON struct {
	ID                  string `json:"id"`
	IPAddress           string `json:"ipaddress"`
	IsSourceNAT         bool   `json:"issourcenat"`
	AssociatedNetworkID string `json:"associatednetworkid,omitempty"`
	Account             string `json:"account,omitempty"`
	DomainID            string `json:"domainid,omitempty"`
	ProjectID           string `json:"projectid,omitempty"`
	State               string `json:"state"`
}

// listPublicIpAddresses lists acquired public addresses under the admin ACL. Filters: id,
// issourcenat, associatednetworkid.
func (s *Server) listPublicIpAddresses(r *request) (any, *apiError) { //nolint:revive // CloudStack's name
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var out []*PublicIP
	for _, ip := range s.world.PublicIPs {
		switch {
		case ip == nil:
		case !s.visible(p, ip.Account, ip.ProjectID):
		case p.Get("id") != "" && ip.ID != p.Get("id"):
		case p.Get("issourcenat") != "" && boolParam(p, "issourcenat") != ip.SourceNAT:
		case p.Get("associatednetworkid") != "" && ip.NetworkID != p.Get("associatednetworkid"):
		default:
			out = append(out, ip)
		}
	}
	return listAnswerOf(r, win, "publicipaddress", out, func(ip *PublicIP) ipJSON {
		return ipJSON{ID: ip.ID, IPAddress: ip.Address, IsSourceNAT: ip.SourceNAT, AssociatedNetworkID: ip.NetworkID,
			Account: ip.Account, DomainID: ip.DomainID, ProjectID: ip.ProjectID, State: "Allocated"}
	}), nil
}
