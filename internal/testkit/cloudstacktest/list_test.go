package cloudstacktest

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
)

func TestPaginationCountsTheTotal(t *testing.T) {
	s, cs := newTestServer(t)
	s.Update(func(w *World) {
		for i := range 1234 {
			w.AddVM(VM{Name: fmt.Sprintf("vm-%04d", i), State: "Running", Account: AdminAccount})
		}
	})

	seen := map[string]int{}
	var lens []int
	for page := 1; ; page++ {
		p := cs.VirtualMachine.NewListVirtualMachinesParams()
		p.SetPage(page)
		p.SetPagesize(500)
		l, err := cs.VirtualMachine.ListVirtualMachines(p)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if len(l.VirtualMachines) == 0 {
			if l.Count != 0 {
				t.Errorf("page %d past the end: count %d, want the empty answer {}", page, l.Count)
			}
			break
		}
		if l.Count != 1234 {
			t.Errorf("page %d: count %d, want the total 1234", page, l.Count)
		}
		lens = append(lens, len(l.VirtualMachines))
		for _, vm := range l.VirtualMachines {
			seen[vm.Id]++
		}
	}
	if diff := cmp.Diff([]int{500, 500, 234}, lens); diff != "" {
		t.Errorf("page lengths (-want +got):\n%s", diff)
	}
	if len(seen) != 1234 {
		t.Errorf("saw %d distinct VMs, want 1234", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("VM %s listed %d times", id, n)
		}
	}
}

func TestPageSizeRules(t *testing.T) {
	s, _ := newTestServer(t)
	s.Update(func(w *World) {
		for i := range 600 {
			w.AddVM(VM{Name: fmt.Sprintf("vm-%d", i), Account: AdminAccount})
		}
	})
	tests := []struct {
		name      string
		params    url.Values
		wantCode  int
		wantItems int
	}{
		{"no paging gives one default page", url.Values{}, 200, 500},
		{"pagesize -1 alone gives everything", url.Values{"pagesize": {"-1"}}, 200, 600},
		{"page without pagesize uses 500", url.Values{"page": {"2"}}, 200, 100},
		{"pagesize 500 is allowed", url.Values{"pagesize": {"500"}}, 200, 500},
		{"pagesize 501 is refused", url.Values{"pagesize": {"501"}}, 431, 0},
		{"pagesize -1 with page is refused", url.Values{"pagesize": {"-1"}, "page": {"1"}}, 431, 0},
		{"pagesize not a number", url.Values{"pagesize": {"ten"}}, 431, 0},
		{"page 0 is the first page", url.Values{"page": {"0"}, "pagesize": {"10"}}, 200, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params.Set("command", "listVirtualMachines")
			status, _, body := rawCall(t, s, tt.params)
			if status != tt.wantCode {
				t.Fatalf("status %d, want %d: %s", status, tt.wantCode, body)
			}
			if status != 200 {
				return
			}
			inner := decodeEnvelope(t, body, "listVirtualMachines")
			items, _ := inner["virtualmachine"].([]any)
			if len(items) != tt.wantItems || inner["count"] != float64(600) {
				t.Errorf("got %d items, count %v; want %d items, count 600", len(items), inner["count"], tt.wantItems)
			}
		})
	}

	s.Update(func(w *World) { w.MaxPageSize = 100 })
	if status, _, _ := rawCall(t, s, url.Values{"command": {"listVirtualMachines"}, "pagesize": {"101"}}); status != 431 {
		t.Errorf("MaxPageSize 100, pagesize 101: status %d, want 431", status)
	}
}

// visibilityWorld holds one VM, cluster and port-forwarding rule per owner.
func visibilityWorld(w *World) {
	owners := []struct{ name, account, project string }{
		{"mine", AdminAccount, ""},
		{"theirs", "alice", ""},
		{"proj-a", "PrjAcct-a", "cafe1000-0000-4000-8000-00000000000a"},
		{"proj-b", "PrjAcct-b", "cafe1000-0000-4000-8000-00000000000b"},
	}
	for _, o := range owners {
		vm := w.AddVM(VM{Name: o.name, State: "Running", Account: o.account, ProjectID: o.project})
		w.AddCluster(Cluster{Name: o.name, State: "Running", Account: o.account, ProjectID: o.project})
		w.AddPortForwardingRule(PortForwardingRule{IPAddressID: o.name, PublicPort: 2222, PrivatePort: 22,
			VirtualMachineID: vm.ID, Account: o.account, ProjectID: o.project})
	}
}

func TestVisibility(t *testing.T) {
	s, cs := newTestServer(t)
	s.Update(visibilityWorld)
	var theirsID string
	s.Read(func(w *World) { theirsID = w.VMByName("theirs").ID })

	tests := []struct {
		name         string
		listall      bool
		projectid    string
		id           string
		withAccounts bool // SetListAllIncludesAccounts
		want         []string
	}{
		{name: "default: own account", want: []string{"mine"}},
		{name: "listall: every account, no projects", listall: true, want: []string{"mine", "theirs"}},
		{name: "projectid -1: every project", projectid: "-1", want: []string{"proj-a", "proj-b"}},
		{name: "projectid -1 listall", projectid: "-1", listall: true, want: []string{"proj-a", "proj-b"}},
		{name: "one project", projectid: "cafe1000-0000-4000-8000-00000000000b", want: []string{"proj-b"}},
		{name: "by id, other account", id: theirsID, want: []string{"theirs"}},
		{name: "newer CloudStack: listall with -1 lists all", projectid: "-1", listall: true, withAccounts: true,
			want: []string{"mine", "theirs", "proj-a", "proj-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.SetListAllIncludesAccounts(tt.withAccounts)
			vp := cs.VirtualMachine.NewListVirtualMachinesParams()
			kp := cs.Kubernetes.NewListKubernetesClustersParams()
			if tt.listall {
				vp.SetListall(true)
				kp.SetListall(true)
			}
			if tt.projectid != "" {
				vp.SetProjectid(tt.projectid)
				kp.SetProjectid(tt.projectid)
			}
			if tt.id != "" {
				vp.SetId(tt.id)
			}
			vms, err := cs.VirtualMachine.ListVirtualMachines(vp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, vmNames(vms.VirtualMachines)); diff != "" {
				t.Errorf("VMs (-want +got):\n%s", diff)
			}
			if tt.id != "" {
				return
			}
			clusters, err := cs.Kubernetes.ListKubernetesClusters(kp)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range clusters.KubernetesClusters {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListVirtualMachinesFilters(t *testing.T) {
	s, cs := newTestServer(t)
	var ids []string
	s.Update(func(w *World) {
		for _, vm := range []VM{
			{Name: "k8s-a-control-1", State: "Running"},
			{Name: "k8s-a-node-1", State: "Destroyed"},
			{Name: "k8s-a-node-2", State: "Expunging"},
			{Name: "k8s-a-node-3", State: "Stopped", Removed: true},
			{Name: "other", State: "Running", DisplayName: "k8s-lookalike"},
		} {
			vm.Account = AdminAccount
			ids = append(ids, w.AddVM(vm).ID)
		}
	})
	tests := []struct {
		name string
		set  func(p *cloudstack.ListVirtualMachinesParams)
		want []string
	}{
		{"all but removed", func(p *cloudstack.ListVirtualMachinesParams) {},
			[]string{"k8s-a-control-1", "k8s-a-node-1", "k8s-a-node-2", "other"}},
		{"name is exact", func(p *cloudstack.ListVirtualMachinesParams) { p.SetName("k8s-a-node") }, nil},
		{"name", func(p *cloudstack.ListVirtualMachinesParams) { p.SetName("k8s-a-node-1") }, []string{"k8s-a-node-1"}},
		{"keyword", func(p *cloudstack.ListVirtualMachinesParams) { p.SetKeyword("a-node") },
			[]string{"k8s-a-node-1", "k8s-a-node-2"}},
		{"state", func(p *cloudstack.ListVirtualMachinesParams) { p.SetState("destroyed") }, []string{"k8s-a-node-1"}},
		{"state present", func(p *cloudstack.ListVirtualMachinesParams) { p.SetState("present") },
			[]string{"k8s-a-control-1", "other"}},
		{"removed by id", func(p *cloudstack.ListVirtualMachinesParams) { p.SetId(ids[3]) }, nil},
		{"ids and details=min", func(p *cloudstack.ListVirtualMachinesParams) {
			p.SetIds([]string{ids[0], ids[2]})
			p.SetDetails([]string{"min"})
		}, []string{"k8s-a-control-1", "k8s-a-node-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := cs.VirtualMachine.NewListVirtualMachinesParams()
			tt.set(p)
			l, err := cs.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, vmNames(l.VirtualMachines)); diff != "" {
				t.Errorf("VMs (-want +got):\n%s", diff)
			}
			if l.Count != len(tt.want) {
				t.Errorf("count %d, want %d", l.Count, len(tt.want))
			}
		})
	}
}

func TestWorldHelpers(t *testing.T) {
	var w World // the zero World is usable
	a := w.AddVM(VM{Name: "a"})
	b := w.AddVM(VM{Name: "a", InternalID: 10})
	c := w.AddVM(VM{Name: "c"})
	if a.InternalID != 1 || b.InternalID != 10 || c.InternalID != 11 || a.DisplayName != "a" {
		t.Errorf("ids %d %d %d, display %q", a.InternalID, b.InternalID, c.InternalID, a.DisplayName)
	}
	if w.VMByName("a") != a || w.VMByName("nope") != nil {
		t.Error("VMByName did not return the lowest id")
	}
	ids := []string{a.ID, b.ID, c.ID}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != 3 || !cloudstack.IsID(a.ID) {
		t.Errorf("uuids not unique or not well-formed: %v", ids)
	}
	k2 := w.AddCluster(Cluster{Name: "k2", InternalID: 5})
	k1 := w.AddCluster(Cluster{Name: "k1", InternalID: 2})
	if w.Clusters[0] != k1 || w.Clusters[1] != k2 || w.ClusterByName("k2") != k2 {
		t.Error("clusters are not kept in id order")
	}
}

func TestNilRowsDoNotBreakAnswers(t *testing.T) {
	s, _ := newTestServer(t)
	s.Update(func(w *World) {
		w.VMs[42] = nil
		w.Clusters = append(w.Clusters, nil)
		w.PortForwardingRules = append(w.PortForwardingRules, nil)
		w.Alerts = append(w.Alerts, nil)
		w.Annotations = append(w.Annotations, nil)
		w.AddCluster(Cluster{Name: "c", Account: AdminAccount, VMMap: []int64{42}})
	})
	for _, cmd := range []string{"listVirtualMachines", "listKubernetesClusters", "listPortForwardingRules", "listAlerts", "listAnnotations"} {
		if status, _, body := rawCall(t, s, url.Values{"command": {cmd}, "listall": {"true"}}); status != 200 {
			t.Errorf("%s: status %d: %s", cmd, status, body)
		}
	}
}
