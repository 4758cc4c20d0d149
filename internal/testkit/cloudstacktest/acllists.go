package cloudstacktest

import "strings"

// NetworkACLList is a network_acl row: the ACL list of a VPC (VPCID, owned as the VPC is by
// Account or ProjectID), or with no VPCID a global list, which only a root admin can create
// (CreateNetworkACLListCmd.getEntityOwnerId at 4.19.0.0 and 4.21.0.0). CloudStack's own lists,
// default_deny and default_allow (ids 1 and 2, schema-410to420.sql lines 2036 and 2041), come
// before every list of World.NetworkACLLists and are not in it.
type NetworkACLList struct {
	ID, Name, Description string
	VPCID                 string
	Account, ProjectID    string
}

// DefaultDenyACL is the uuid the fake gives CloudStack's default_deny ACL list.
const DefaultDenyACL = "acl00000-0000-4000-8000-000000000001"

// aclListJSON is CloudStack's NetworkACLResponse (the same at 4.19.0.0 and 4.21.0.0):
// ApiResponseHelper.createNetworkACLResponse sets vpcid and vpcname only for a list of a VPC.
type aclListJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	VPCID       string `json:"vpcid,omitempty"`
	ForDisplay  bool   `json:"fordisplay"`
}

// aclLists returns every ACL list by id, lowest first: CloudStack's two, then the world's.
// DefaultAllowName, when set, is the name a root admin gave default_allow (updateNetworkACLList
// does not refuse it).
func (w *World) aclLists() []*NetworkACLList {
	allow := w.DefaultAllowName
	if allow == "" {
		allow = "default_allow"
	}
	return append([]*NetworkACLList{
		{ID: DefaultDenyACL, Name: "default_deny", Description: "Default Network ACL Deny All"},
		{ID: DefaultAllowACL, Name: allow, Description: "Default Network ACL Allow All"},
	}, w.NetworkACLLists...)
}

// aclListName is the name of the ACL list id ("" when there is none), as listNetworks answers it
// in aclname.
func (w *World) aclListName(id string) string {
	for _, l := range w.aclLists() {
		if l.ID == id {
			return l.Name
		}
	}
	return ""
}

// listNetworkACLLists lists the ACL lists as NetworkACLServiceImpl.listNetworkACLs does (4.19.0.0
// to 4.21.0.0): the global ones and those of the VPCs the caller may see (visible: without
// listall the caller's own only; vpcid: that VPC's and the global ones), ordered by id from the
// highest. Filters: id, name (compared as MySQL's
// case-insensitive collation does), vpcid, networkid (the network's list).
func (s *Server) listNetworkACLLists(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var network *Network
	if id := p.Get("networkid"); id != "" {
		for _, n := range s.world.Networks {
			if n != nil && n.ID == id {
				network = n
			}
		}
		if network == nil {
			return nil, paramError("Unable to execute API command listnetworkacllists due to invalid value. Invalid parameter networkid value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", id)
		}
	}
	visible := s.visibility(p)
	lists := s.world.aclLists()
	var out []*NetworkACLList
	for i := len(lists) - 1; i >= 0; i-- {
		l := lists[i]
		switch {
		case l == nil:
		case l.VPCID != "" && p.Get("vpcid") == "" && !visible(l.Account, l.ProjectID):
		case p.Get("vpcid") != "" && l.VPCID != "" && l.VPCID != p.Get("vpcid"):
		case p.Get("id") != "" && l.ID != p.Get("id"):
		case p.Get("name") != "" && !strings.EqualFold(strings.TrimRight(l.Name, " "), strings.TrimRight(p.Get("name"), " ")):
		case network != nil && network.ACLID != l.ID:
		default:
			out = append(out, l)
		}
	}
	return listAnswerOf(r, win, "networkacllist", out, func(l *NetworkACLList) aclListJSON {
		return aclListJSON{ID: l.ID, Name: l.Name, Description: l.Description, VPCID: l.VPCID, ForDisplay: true}
	}), nil
}
