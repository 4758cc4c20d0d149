package collector

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	uuidA = "0a3c4d5e-0000-4000-8000-00000000000a"
	uuidB = "0b3c4d5e-0000-4000-8000-00000000000b"
	uuidV = "0c3c4d5e-0000-4000-8000-0000000000cc"
)

// acceptWorld is two tenants' clusters called build-farm (names are unique per account only),
// each with an unmapped cache VM of the same name, and one cluster called like the other's uuid.
func acceptWorld() []ClusterStatus {
	cache := func(id string) Finding {
		return Finding{Kind: KindUnmappedVM, VMID: id, VMName: "build-farm-node-cache01", Message: "cache " + id}
	}
	return []ClusterStatus{
		ClusterStatus{Cluster: Cluster{ID: uuidA, Name: "build-farm", Account: "alice"}, Checked: true}.
			With(cache("vm-a"), Finding{Kind: KindVMMapIncomplete, Message: "gap"}, Finding{Kind: KindNodeWithoutVM, VMName: "old-node", Message: "old"}),
		ClusterStatus{Cluster: Cluster{ID: uuidB, Name: "build-farm", Account: "mallory"}, Checked: true}.With(cache("vm-b")),
		ClusterStatus{Cluster: Cluster{ID: "c-3", Name: uuidA, Account: "mallory"}, Checked: true}.
			With(cache("vm-c"), Finding{Kind: KindVMNotANode, VMID: "vm-d", VMName: uuidV, Message: "d"}),
	}
}

func clustersOf(statuses []ClusterStatus) []Cluster {
	var out []Cluster
	for _, s := range statuses {
		out = append(out, s.Cluster)
	}
	return out
}

// accepted returns, per cluster id, the keys of its accepted findings.
func accepted(statuses []ClusterStatus) map[string][]string {
	out := map[string][]string{}
	for _, s := range statuses {
		for _, a := range s.Accepted {
			out[s.Cluster.ID] = append(out[s.Cluster.ID], a.Key())
		}
	}
	return out
}

func TestAccept(t *testing.T) {
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	cacheRule := AcceptRule{Cluster: uuidA, Kind: KindUnmappedVM, VM: "build-farm-node-cache01", Reason: "cache"}
	for _, tc := range []struct {
		name  string
		rules []AcceptRule
		want  map[string][]string
		uses  []RuleUse
	}{
		{name: "no rules", want: map[string][]string{}},
		{name: "by cluster uuid and VM name: only that cluster's VM",
			rules: []AcceptRule{cacheRule},
			want:  map[string][]string{uuidA: {"unmapped_vm:vm-a"}}, uses: []RuleUse{RuleMatched}},
		// Another tenant's cluster named like the accepted cluster's uuid is not that cluster.
		{name: "a cluster named like the rule's uuid is not matched",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindUnmappedVM, VM: "vm-c", Reason: "x"}},
			want:  map[string][]string{}, uses: []RuleUse{RuleUnmatched}},
		// Two tenants' clusters share the name: the rule accepts neither, and says so.
		{name: "a name two clusters have accepts nothing",
			rules: []AcceptRule{{Cluster: "build-farm", Kind: KindUnmappedVM, VM: "build-farm-node-cache01", Reason: "cache"}},
			want:  map[string][]string{}, uses: []RuleUse{RuleAmbiguous}},
		{name: "a unique name matches",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindUnmappedVM, VM: "vm-c", Reason: "x"}, {Cluster: "c-3", Kind: KindUnmappedVM, VM: "vm-c", Reason: "y"}},
			want:  map[string][]string{"c-3": {"unmapped_vm:vm-c"}}, uses: []RuleUse{RuleUnmatched, RuleMatched}},
		// A VM named like the uuid in a rule is not that VM.
		{name: "a VM named like the rule's uuid is not matched",
			rules: []AcceptRule{{Cluster: "c-3", Kind: KindVMNotANode, VM: uuidV, Reason: "x"}},
			want:  map[string][]string{}, uses: []RuleUse{RuleUnmatched}},
		{name: "by VM uuid",
			rules: []AcceptRule{{Cluster: "c-3", Kind: KindVMNotANode, VM: "vm-d", Reason: "x"}},
			want:  map[string][]string{"c-3": {"vm_not_a_node:vm-d"}}, uses: []RuleUse{RuleMatched}},
		{name: "the kind must match",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindMappedVMExpunged, VM: "build-farm-node-cache01", Reason: "x"}},
			want:  map[string][]string{}, uses: []RuleUse{RuleUnmatched}},
		{name: "a kind about the whole cluster and a node",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindVMMapIncomplete, Reason: "x"}, {Cluster: uuidA, Kind: KindNodeWithoutVM, VM: "old-node", Reason: "y"}},
			want:  map[string][]string{uuidA: {"vm_map_incomplete", "node_without_vm:old-node"}}, uses: []RuleUse{RuleMatched, RuleMatched}},
		{name: "until not reached yet",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindUnmappedVM, VM: "vm-a", Reason: "x", Ends: now.Add(time.Second)}},
			want:  map[string][]string{uuidA: {"unmapped_vm:vm-a"}}, uses: []RuleUse{RuleMatched}},
		{name: "past until",
			rules: []AcceptRule{{Cluster: uuidA, Kind: KindUnmappedVM, VM: "vm-a", Reason: "x", Ends: now}},
			want:  map[string][]string{}, uses: []RuleUse{RuleExpired}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := acceptWorld()
			got, reports := Accept(in, clustersOf(in), tc.rules, now)
			if diff := cmp.Diff(tc.want, accepted(got)); diff != "" {
				t.Errorf("accepted (-want +got):\n%s", diff)
			}
			var uses []RuleUse
			for _, r := range reports {
				uses = append(uses, r.Use)
			}
			if diff := cmp.Diff(tc.uses, uses); diff != "" {
				t.Errorf("rule uses (-want +got):\n%s", diff)
			}
			// Every finding is somewhere, once.
			for i := range in {
				if n, m := len(in[i].Findings()), len(got[i].Findings())+len(got[i].Accepted); n != m {
					t.Errorf("%s: %d findings in, %d out", in[i].Cluster.ID, n, m)
				}
			}
		})
	}
}

func TestAcceptAmbiguousNamesTheClusters(t *testing.T) {
	in := acceptWorld()
	_, reports := Accept(in, clustersOf(in), []AcceptRule{{Cluster: "build-farm", Kind: KindUnmappedVM, VM: "x", Reason: "r"}}, time.Now())
	if diff := cmp.Diff([]string{uuidA, uuidB}, reports[0].AmbiguousIDs); diff != "" {
		t.Errorf("ambiguous ids (-want +got):\n%s", diff)
	}
}

// TestAcceptGivesBack: once its rule is gone, an accepted finding is active again, on its side
// and in the engine's order, with its first-seen time.
func TestAcceptGivesBack(t *testing.T) {
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	in := acceptWorld()
	first := now.Add(-time.Hour)
	in[0].On(SideVM)[0].FirstSeen = first
	rules := []AcceptRule{
		{Cluster: uuidA, Kind: KindUnmappedVM, VM: "vm-a", Reason: "cache", Until: "as written", Ends: now.Add(time.Hour)},
		{Cluster: uuidA, Kind: KindNodeWithoutVM, VM: "old-node", Reason: "old"},
	}
	mid, _ := Accept(in, clustersOf(in), rules, now)
	if len(mid[0].On(SideVM)) != 1 || len(mid[0].On(SideNode)) != 0 || len(mid[0].Accepted) != 2 || mid[0].AcceptedOn(SideNode) != 1 {
		t.Fatalf("accepted: %+v", mid[0])
	}
	if a := mid[0].Accepted[0]; a.Reason != "cache" || a.Until != "as written" || !a.Ends.Equal(now.Add(time.Hour)) || !a.FirstSeen.Equal(first) {
		t.Errorf("accepted finding %+v: want reason, until and first-seen kept", a)
	}
	back, _ := Accept(mid, clustersOf(mid), nil, now)
	if diff := cmp.Diff(in[0], back[0], cmp.AllowUnexported(NodeList{}, ClusterStatus{})); diff != "" {
		t.Errorf("without rules (-before +after):\n%s", diff)
	}
	if len(mid[0].Accepted) != 2 {
		t.Errorf("Accept changed its input: %+v", mid[0])
	}
}
