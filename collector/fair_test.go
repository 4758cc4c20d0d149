package collector

import (
	"fmt"
	"testing"
)

// TestRoundRobinByClusterThenOwner: taken by cluster and then by owner, a noisy owner with three
// clusters of many items each and a victim with one item give the victim its item in the first
// turn, and the noisy owner's clusters one item each before any of them a second, whatever the
// names, in every cycle's order.
func TestRoundRobinByClusterThenOwner(t *testing.T) {
	type item struct{ owner, cluster, name string }
	var items []item
	for _, c := range []string{"0", "00", "000"} {
		for k := range 10 {
			items = append(items, item{"noisy", c, fmt.Sprintf("%s-%d", c, k)})
		}
	}
	items = append(items, item{"victim", "zzz", "victim-0"})
	turns := NewTurns()
	for cycle := range 20 {
		turns.Next()
		byCluster := RoundRobin(turns, items, func(it item) string { return it.cluster })
		got := RoundRobin(turns, byCluster, func(it item) string { return it.owner })
		if len(got) != len(items) {
			t.Fatalf("cycle %d: %d items, want %d", cycle, len(got), len(items))
		}
		if got[0].owner == got[1].owner {
			t.Fatalf("cycle %d: the first two items are both %s's: %v", cycle, got[0].owner, got[:2])
		}
		// The noisy owner's first three items are one of each of its clusters, in their own order.
		var noisy []item
		for _, it := range got {
			if it.owner == "noisy" {
				noisy = append(noisy, it)
			}
		}
		seen := map[string]bool{}
		for _, it := range noisy[:3] {
			if seen[it.cluster] {
				t.Fatalf("cycle %d: cluster %s has a second item before every cluster had one: %v", cycle, it.cluster, noisy[:3])
			}
			seen[it.cluster] = true
			if it.name != it.cluster+"-0" {
				t.Errorf("cycle %d: cluster %s's first item is %s, want its own first", cycle, it.cluster, it.name)
			}
		}
	}
}

// TestTurnsChangeEveryCycle: with more owners than places, the first place goes to different
// owners over the cycles, not always to one (a fixed order would starve the others).
func TestTurnsChangeEveryCycle(t *testing.T) {
	owners := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	turns := NewTurns()
	first := map[string]bool{}
	for range 64 {
		turns.Next()
		first[RoundRobin(turns, owners, func(s string) string { return s })[0]] = true
	}
	if len(first) < 2 {
		t.Errorf("64 cycles gave the first place to %v only", first)
	}
}

// TestOwner: the projects of a domain are one owner whatever their project or account, apart from
// the domain's accounts and from the projects of another domain; accounts of the same name in two
// domains are two. (Every project was an owner of its own: a tenant took one turn per project.)
func TestOwner(t *testing.T) {
	a := Cluster{Account: "ops", DomainID: "d1"}
	b := Cluster{Account: "ops", DomainID: "d2"}
	p1 := Cluster{Account: "PrjAcct-x", DomainID: "d1", ProjectID: "p"}
	p2 := Cluster{Account: "admin", DomainID: "d1", ProjectID: "q"}
	p3 := Cluster{DomainID: "d2", ProjectID: "r"}
	if a.Owner() == b.Owner() {
		t.Errorf("accounts ops of two domains share the owner %q", a.Owner())
	}
	if p1.Owner() != p2.Owner() {
		t.Errorf("two projects of one domain have owners %q and %q", p1.Owner(), p2.Owner())
	}
	if p1.Owner() == a.Owner() || p1.Owner() == p3.Owner() {
		t.Errorf("projects of domain d1 share the owner %q with an account or another domain's projects", p1.Owner())
	}
}
