package collector

import (
	"maps"
	"slices"
)

// Side tells which comparison a finding comes from; each side clears and is announced on its own.
type Side string

// The sides of the check; SideDeclarations holds what each is. Adding a side is adding its
// SideDeclaration: statuses hold findings by side (ClusterStatus.On), and the engine, the
// resolved history, the accept rules, the notifier and the status page go through the
// declarations.
const (
	SideVM   Side = "vm"
	SideNode Side = "node"
	// SideOperation holds stuck_in_operation: it is not a comparison, and is evaluated for
	// skipped clusters too.
	SideOperation Side = "operation"
	// SideNetwork holds the rules CKS created on the cluster's network that are gone
	// (networkrules.go); compared only when the source read the rules.
	SideNetwork Side = "network"
	// SideCluster holds what the cluster itself records in CloudStack and needs, such as its
	// service offerings.
	SideCluster Side = "cluster"
)

// SideDeclaration is what a side is: its name in the docs' tables, the message that says, in
// CloudStack's annotation and the log, that its findings of a cluster are gone, and when a cycle
// compared it.
type SideDeclaration struct {
	Side Side
	// Title names the side in the kinds tables.
	Title string
	// Resolution is the message of a cluster whose last finding of the side cleared; state is,
	// for the operation side, the state the cluster was stuck in.
	Resolution func(cluster, state string) string
	// Compared reports whether the cycle that made s compared the side: only then can a finding
	// of it have cleared. A side that was not compared keeps its findings as they were
	// (Evaluate), owes no resolution (the notifier) and records nothing as resolved.
	Compared func(s ClusterStatus) bool
}

// checked is Compared of the sides compared whenever the cluster is.
func checked(s ClusterStatus) bool { return s.Checked }

// SideDeclarations lists every side, in the order the notifier goes through them.
var SideDeclarations = []SideDeclaration{
	{Side: SideVM, Title: "VM", Compared: checked, Resolution: func(cluster, _ string) string {
		return "The VM map of Kubernetes cluster " + cluster + " matches the VMs of the cluster in CloudStack again"
	}},
	{Side: SideNode, Title: "node", Compared: ClusterStatus.NodesEvaluated, Resolution: func(cluster, _ string) string {
		return "The VM map of Kubernetes cluster " + cluster + " matches the Kubernetes nodes of the cluster again"
	}},
	{Side: SideOperation, Title: "operation", Compared: func(ClusterStatus) bool { return true }, Resolution: func(cluster, state string) string {
		return "Kubernetes cluster " + cluster + " is no longer stuck in state " + state
	}},
	{Side: SideNetwork, Title: "network", Compared: ClusterStatus.NetworkEvaluated, Resolution: func(cluster, _ string) string {
		return "The network rules of Kubernetes cluster " + cluster + " match what CKS created again"
	}},
	{Side: SideCluster, Title: "cluster", Compared: ClusterStatus.OfferingsEvaluated, Resolution: func(cluster, _ string) string {
		return "The service offerings of Kubernetes cluster " + cluster + " are active in CloudStack again"
	}},
}

// Sides lists every side, in the order of SideDeclarations.
var Sides = sideList()

func sideList() []Side {
	out := make([]Side, len(SideDeclarations))
	for i, d := range SideDeclarations {
		out[i] = d.Side
	}
	return out
}

// Declaration returns what the side is; a side that is not declared has a zero Declaration.
func (s Side) Declaration() SideDeclaration {
	for _, d := range SideDeclarations {
		if d.Side == s {
			return d
		}
	}
	return SideDeclaration{}
}

// On returns the findings of one side, accepted ones excepted.
func (s ClusterStatus) On(side Side) []Finding { return s.found[side] }

// Set replaces the findings of one side. The map of sides is copied, never changed in place,
// since copies of a status share it. A status without findings holds no map: most sides of most
// clusters have none, and each cycle sets every side of every cluster.
func (s *ClusterStatus) Set(side Side, findings []Finding) {
	if len(findings) == 0 && len(s.found[side]) == 0 {
		return // a side without findings has no entry
	}
	found := make(map[Side][]Finding, len(s.found)+1)
	maps.Copy(found, s.found)
	if len(findings) == 0 {
		delete(found, side)
	} else {
		found[side] = findings
	}
	if len(found) == 0 {
		found = nil
	}
	s.found = found
}

// Add appends findings, each to the side of its kind.
func (s *ClusterStatus) Add(findings ...Finding) {
	if len(findings) == 0 {
		return
	}
	found := make(map[Side][]Finding, len(s.found)+1)
	for side, fs := range s.found {
		found[side] = slices.Clip(fs) // appended to in a copy of their own
	}
	for _, f := range findings {
		side := f.Kind.Side()
		found[side] = append(found[side], f)
	}
	s.found = found
}

// CloneFindings returns s with a copy of each side's findings, for a reader that may reorder
// or change them while s is still served.
func (s ClusterStatus) CloneFindings() ClusterStatus {
	found := make(map[Side][]Finding, len(s.found))
	for side, fs := range s.found {
		found[side] = slices.Clone(fs)
	}
	s.found = found
	return s
}

// With returns s with findings added, each on the side of its kind.
func (s ClusterStatus) With(findings ...Finding) ClusterStatus {
	s.Add(findings...)
	return s
}
