package collector

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// AcceptRule is an operator's acceptance of one finding, from the configuration. Nothing a
// tenant controls is a rule: tenants only choose names, and a rule matches names in ways a
// tenant cannot turn to accept anything else (see Accept).
type AcceptRule struct {
	// Cluster is the cluster's uuid, or its name when exactly one cluster of the cloud has it.
	Cluster string
	Kind    Kind
	// VM is the VM's uuid or name (the node's name for node_without_vm); empty for the kinds
	// about the whole cluster.
	VM     string
	Reason string
	// Until is the rule's end as the operator wrote it (a date or an RFC 3339 time), shown as
	// written: a date stays a date. Empty: no end.
	Until string
	// Ends is when the rule stops accepting (for a date, the start of the next day, UTC); zero:
	// never.
	Ends time.Time
}

// Acceptance says why a finding is not reported: the reason and end of the rule that accepts it.
type Acceptance struct {
	Reason string `json:"reason"`
	// Until is the rule's until as written; Ends the time the acceptance ends.
	Until string    `json:"until,omitempty"`
	Ends  time.Time `json:"ends,omitzero"`
}

// AcceptedFinding is a finding an operator accepted: shown with its reason, never announced.
type AcceptedFinding struct {
	Finding
	Acceptance
}

// RuleUse says what one rule did in a cycle.
type RuleUse string

// What a rule did in a cycle.
const (
	RuleMatched   RuleUse = "matched"   // it accepts at least one finding
	RuleUnmatched RuleUse = "unmatched" // no finding of this cycle is the one it names
	RuleExpired   RuleUse = "expired"   // its until is past
	// RuleAmbiguous: it names a cluster by a name that more than one cluster has, and so
	// accepts nothing; AmbiguousIDs lists them.
	RuleAmbiguous RuleUse = "ambiguous"
)

// RuleReport is what one rule did in a cycle, in the order of the rules.
type RuleReport struct {
	Rule AcceptRule
	Use  RuleUse
	// AmbiguousIDs are the uuids of the clusters that share the rule's cluster name.
	AmbiguousIDs []string
}

// uuidShape matches the form of a CloudStack uuid.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// UUIDShaped reports whether s has the form of a CloudStack uuid: only such a value is ever put
// into a link to CloudStack.
func UUIDShaped(s string) bool { return uuidShape.MatchString(s) }

// Accept returns the statuses with the findings the rules accept in Accepted and every other
// finding on its side, whatever the statuses held before: a rule that was removed or is past
// its Until gives its finding back, so the finding is new to the notifier and announced once.
// clusters is every cluster of the inventory (not only a shard's), for telling whether a name is
// unique.
//
// Names belong to tenants, so they match only where a tenant cannot make them match something
// else: a rule's cluster that is some cluster's uuid, or has the shape of a uuid, matches by uuid
// only (a tenant may name a cluster like another cluster's uuid); a name matches only while one
// cluster of the cloud has it (names are unique per account only, and another tenant may take
// the same one), else the rule accepts nothing and reports RuleAmbiguous. The VM is matched the
// same way within the cluster: a uuid-shaped value only by uuid.
func Accept(statuses []ClusterStatus, clusters []Cluster, rules []AcceptRule, now time.Time) ([]ClusterStatus, []RuleReport) {
	ids := make(map[string]bool, len(clusters))
	byName := make(map[string][]string)
	for _, c := range clusters {
		ids[c.ID] = true
		byName[c.Name] = append(byName[c.Name], c.ID)
	}
	reports := make([]RuleReport, len(rules))
	for i, r := range rules {
		reports[i] = RuleReport{Rule: r, Use: RuleUnmatched}
		switch {
		case !r.Ends.IsZero() && !now.Before(r.Ends):
			reports[i].Use = RuleExpired
		case !ids[r.Cluster] && !uuidShape.MatchString(r.Cluster) && len(byName[r.Cluster]) > 1:
			reports[i].Use = RuleAmbiguous
			reports[i].AmbiguousIDs = slices.Sorted(slices.Values(byName[r.Cluster]))
		}
	}
	out := make([]ClusterStatus, len(statuses))
	for i, s := range statuses {
		all := s.withAccepted()
		s.found, s.Accepted = nil, nil
		for _, side := range Sides {
			var keep []Finding
			for _, f := range all.On(side) {
				if j := acceptedBy(rules, reports, s.Cluster, ids, f); j >= 0 {
					reports[j].Use = RuleMatched
					s.Accepted = append(s.Accepted, AcceptedFinding{Finding: f, Acceptance: Acceptance{Reason: rules[j].Reason, Until: rules[j].Until, Ends: rules[j].Ends}})
					continue
				}
				keep = append(keep, f)
			}
			s.Set(side, keep)
		}
		out[i] = s
	}
	return out, reports
}

// acceptedBy returns the index of the first rule that accepts f of cluster c, or -1.
func acceptedBy(rules []AcceptRule, reports []RuleReport, c Cluster, ids map[string]bool, f Finding) int {
	for j, r := range rules {
		if reports[j].Use == RuleExpired || reports[j].Use == RuleAmbiguous || r.Kind != f.Kind {
			continue
		}
		if !namesCluster(r.Cluster, c, ids) || !namesVM(r.VM, f) {
			continue
		}
		return j
	}
	return -1
}

// namesCluster reports whether a rule's cluster value names c: its uuid, or (for a value that is
// no cluster's uuid and has not the shape of one) its name.
func namesCluster(value string, c Cluster, ids map[string]bool) bool {
	if ids[value] || uuidShape.MatchString(value) {
		return strings.EqualFold(value, c.ID)
	}
	return value == c.Name
}

// namesVM reports whether a rule's vm value names the finding's VM (or node): empty for a finding
// about the whole cluster, else its uuid, or its name where the value has not the shape of a uuid.
func namesVM(value string, f Finding) bool {
	if f.Kind.PerCluster() || value == "" {
		return value == "" && (f.Kind.PerCluster() || f.Kind.EitherSubject() && f.VMID == "" && f.VMName == "")
	}
	if f.VMID != "" && value == f.VMID {
		return true
	}
	return !uuidShape.MatchString(value) && value == f.VMName
}

// AcceptedOn returns how many accepted findings the side has: a side whose other findings clear
// while accepted ones remain does not match again.
func (s ClusterStatus) AcceptedOn(side Side) int {
	n := 0
	for _, a := range s.Accepted {
		if a.Kind.Side() == side {
			n++
		}
	}
	return n
}
