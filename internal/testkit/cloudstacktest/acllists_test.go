package cloudstacktest

import (
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
)

// TestListNetworkACLLists: the fake lists ACL lists as CloudStack does, read with the SDK: the
// global ones (no vpcid) and the VPCs' that the caller sees (without listall: its own), by id
// from the highest, the name compared case-insensitively; a tier's own list named as
// BuildCluster names it, and its name answered as the network's aclname.
func TestListNetworkACLLists(t *testing.T) {
	s, cs := newTestServer(t)
	var tier, named *ClusterSet
	s.Update(func(w *World) {
		tier = w.BuildCluster(ClusterSpec{Name: "Tier", Account: "acme", Control: 1, VPC: true})
		named = w.BuildCluster(ClusterSpec{Name: "prod", Account: "mallory", Control: 1, VPC: true, ACLName: "default_allow"})
		w.NetworkACLLists = append(w.NetworkACLLists, &NetworkACLList{ID: "acl0ffff-0000-4000-8000-000000000001", Name: "DEFAULT_ALLOW"})
	})
	list := func(edit func(p *cloudstack.ListNetworkACLListsParams)) []string {
		t.Helper()
		p := cs.NetworkACL.NewListNetworkACLListsParams()
		p.SetListall(true)
		edit(p)
		l, err := cs.NetworkACL.ListNetworkACLLists(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range l.NetworkACLLists {
			out = append(out, a.Name+"@"+a.Vpcid)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		edit func(p *cloudstack.ListNetworkACLListsParams)
		want []string
	}{
		{"all", func(*cloudstack.ListNetworkACLListsParams) {},
			[]string{"DEFAULT_ALLOW@", "default_allow@" + named.Network.VPCID, "tier-acl@" + tier.Network.VPCID, "default_allow@", "default_deny@"}},
		{"by name", func(p *cloudstack.ListNetworkACLListsParams) { p.SetName("default_allow") },
			[]string{"DEFAULT_ALLOW@", "default_allow@" + named.Network.VPCID, "default_allow@"}},
		{"by vpc", func(p *cloudstack.ListNetworkACLListsParams) { p.SetVpcid(tier.Network.VPCID) },
			[]string{"DEFAULT_ALLOW@", "tier-acl@" + tier.Network.VPCID, "default_allow@", "default_deny@"}},
		{"by name without listall: no tenant's", func(p *cloudstack.ListNetworkACLListsParams) {
			p.SetName("default_allow")
			p.SetListall(false)
		}, []string{"DEFAULT_ALLOW@", "default_allow@"}},
		{"by network", func(p *cloudstack.ListNetworkACLListsParams) { p.SetNetworkid(named.Network.ID) },
			[]string{"default_allow@" + named.Network.VPCID}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, list(tt.edit)); diff != "" {
				t.Errorf("lists (-want +got):\n%s", diff)
			}
		})
	}
	p := cs.Network.NewListNetworksParams()
	p.SetListall(true)
	p.SetId(named.Network.ID)
	n, err := cs.Network.ListNetworks(p)
	if err != nil || len(n.Networks) != 1 || n.Networks[0].Aclname != "default_allow" || n.Networks[0].Aclid != named.Network.ACLID {
		t.Fatalf("listNetworks id=%s: %+v, %v; want aclname default_allow", named.Network.ID, n, err)
	}
}
