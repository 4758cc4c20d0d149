package collector

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// Where one tenant's work can crowd out another's (the alerts of a cycle, the node listings'
// workers), the exporter hands it out in turns: every owner once before any owner twice. The
// order within a turn must not be one a tenant can choose: cluster names sort as their owner
// likes ("0" before every other), and uuids, though CloudStack picks them, are known to their
// tenant and fixed. So the order is a hash keyed with a secret the process draws at start
// (hash/maphash's seed) and a salt that changes every cycle: no tenant can compute its place,
// and no owner keeps the first place cycle after cycle, which a fixed order would give it
// whenever more owners wait than there is room (the alert cap): the others would never be first.

// Owner returns the tenant a cluster belongs to, the group that takes one turn: its account in
// its domain (account names are unique per domain only), or, for a project's cluster, its
// project's domain, one owner for every project of the domain. One owner per project gave a
// tenant a turn per project it created (a regular user may create projects). The project's
// owning account would not do either: a project's admin may make any account of its domain the
// owner, and so put its clusters in a victim's turn. A project's domain is fixed at its creation
// and comes with every cluster answer (CloudStack 4.19.0.0, ProjectManagerImpl and
// KubernetesClusterManagerImpl; docs/cloudstack.md, "Accounts, projects and domains").
func (c Cluster) Owner() string {
	if c.ProjectID != "" {
		return "projects/" + c.DomainID
	}
	return "account/" + c.DomainID + "/" + c.Account
}

// Turns draws the order of the turns: one secret per process, one salt per cycle.
type Turns struct {
	seed maphash.Seed
	salt uint64
}

// NewTurns returns turns with a new secret.
func NewTurns() *Turns { return &Turns{seed: maphash.MakeSeed()} }

// Next changes the salt: the next cycle's order is a new one.
func (t *Turns) Next() { t.salt++ }

// Hash is s's place, unknown to whoever chose s.
func (t *Turns) Hash(s string) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	var salt [8]byte
	binary.LittleEndian.PutUint64(salt[:], t.salt)
	_, _ = h.Write(salt[:])
	_, _ = h.WriteString(s)
	return h.Sum64()
}

// RoundRobin reorders items so that their groups take turns: the first item of every group,
// then the second of every group, and so on, the groups of a turn in the order of their Hash.
// Items of one group keep the order they come in. Applied twice, by cluster and then by owner, it
// gives every owner a turn before any owner a second, and within an owner every cluster one
// before any cluster a second.
func RoundRobin[T any](t *Turns, items []T, group func(T) string) []T {
	type placed struct {
		turn int
		hash uint64
		at   int
	}
	seen := make(map[string]int)
	hashes := make(map[string]uint64)
	places := make([]placed, len(items))
	for i, it := range items {
		g := group(it)
		h, ok := hashes[g]
		if !ok {
			h = t.Hash(g)
			hashes[g] = h
		}
		places[i] = placed{turn: seen[g], hash: h, at: i}
		seen[g]++
	}
	slices.SortFunc(places, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.turn, b.turn), cmp.Compare(a.hash, b.hash), cmp.Compare(a.at, b.at))
	})
	out := make([]T, len(items))
	for i, p := range places {
		out[i] = items[p.at]
	}
	return out
}
