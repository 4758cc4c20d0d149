package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// AcceptRule is one entry of accept: a finding the operator knows of and accepts, so that it is
// shown with its reason but neither announced nor exported as drift. Accepting is configuration
// only; the engine decides what a rule's names may match (collector.Accept).
type AcceptRule struct {
	// Cluster is the cluster's uuid, or its name (which matches only while one cluster of the
	// cloud has it).
	Cluster string         `yaml:"cluster"`
	Kind    collector.Kind `yaml:"kind"`
	// VM is the VM's uuid or name, the node's name for node_without_vm; none for the kinds
	// about the whole cluster.
	VM     string `yaml:"vm,omitempty"`
	Reason string `yaml:"reason"`
	Until  Until  `yaml:"until,omitempty"`
}

// Until is the optional end of an acceptance as written: a date, which accepts through the end of
// that day (UTC), or an RFC 3339 time. Decoding refuses anything else, so End never fails on a
// loaded configuration.
type Until string

// UnmarshalYAML takes the value as written and refuses one that is neither form. The refusal is
// a yaml.TypeError, so that yaml decodes the rest of the file and the other rules are checked.
func (u *Until) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{"until: not a single value"}}
	}
	if _, err := parseUntil(n.Value); err != nil {
		return &yaml.TypeError{Errors: []string{err.Error()}}
	}
	*u = Until(n.Value)
	return nil
}

// End returns when the acceptance ends: the start of the next day (UTC) for a date; zero when
// there is no end.
func (u Until) End() time.Time {
	t, _ := parseUntil(string(u))
	return t
}

func parseUntil(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.AddDate(0, 0, 1), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("until: %q is neither a date nor an RFC 3339 time", s)
	}
	return t.UTC(), nil
}

// Rules returns the accept rules as the engine takes them.
func (c *Config) Rules() []collector.AcceptRule {
	out := make([]collector.AcceptRule, len(c.Accept))
	for i, r := range c.Accept {
		out[i] = collector.AcceptRule{Cluster: r.Cluster, Kind: r.Kind, VM: r.VM, Reason: r.Reason, Until: string(r.Until), Ends: r.Until.End()}
	}
	return out
}

// accept checks every rule: a cluster, a known kind and a reason; a VM exactly where the kind has
// one; and no two rules for the same finding, where the second would never apply.
func (v *validation) accept(rules []AcceptRule) {
	kinds := make([]string, len(collector.Kinds))
	for i, k := range collector.Kinds {
		kinds[i] = string(k)
	}
	first := make(map[AcceptRule]int)
	for i, r := range rules {
		key := fmt.Sprintf("accept[%d]", i)
		if strings.TrimSpace(r.Cluster) == "" {
			v.add(key+".cluster", key+".cluster is required")
		}
		switch {
		case r.Kind == "":
			v.add(key+".kind", key+".kind is required")
		case !slices.Contains(collector.Kinds, r.Kind):
			v.keyf(key+".kind", "must be one of %s, not %q", strings.Join(kinds, ", "), r.Kind)
		case r.Kind.PerCluster() && r.VM != "":
			v.keyf(key+".vm", "must be left out: kind %s is about the whole cluster", r.Kind)
		case !r.Kind.PerCluster() && !r.Kind.EitherSubject() && strings.TrimSpace(r.VM) == "":
			v.add(key+".vm", fmt.Sprintf("%s.vm is required for kind %s (the VM's uuid or name, or the node's name)", key, r.Kind))
		}
		if strings.TrimSpace(r.Reason) == "" {
			v.add(key+".reason", key+".reason is required: say why the finding is accepted")
		}
		same := AcceptRule{Cluster: r.Cluster, Kind: r.Kind, VM: r.VM}
		if j, ok := first[same]; ok {
			v.add(key, fmt.Sprintf("%s: accepts the same finding as accept[%d], which wins", key, j))
		} else {
			first[same] = i
		}
	}
}
