package exporter

import (
	"log/slog"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// logAcceptRules logs a change of what an accept rule does, once, not every cycle: a WARN when a
// rule's cluster name becomes one that several clusters have (it then accepts nothing, and the
// finding it accepted is announced), an INFO when the name is one cluster's again, and an INFO
// when a rule's until has passed. Rules are told apart by what they name, so a reload that only
// reorders them logs nothing.
func logAcceptRules(prev, cur []collector.RuleReport, logger *slog.Logger) {
	before := make(map[collector.AcceptRule]collector.RuleUse, len(prev))
	for _, r := range prev {
		before[r.Rule] = r.Use
	}
	for i, r := range cur {
		was, seen := before[r.Rule]
		if seen && was == r.Use {
			continue
		}
		args := []any{"rule", i, "cluster", r.Rule.Cluster, "kind", string(r.Rule.Kind), "vm", r.Rule.VM}
		switch {
		case r.Use == collector.RuleAmbiguous:
			logger.Warn("An accept rule names a cluster by a name that several clusters have and accepts nothing; name the cluster by its uuid",
				append(args, "cluster_ids", r.AmbiguousIDs)...)
		case was == collector.RuleAmbiguous:
			logger.Info("An accept rule's cluster name is one cluster's again; the rule applies", args...)
		case r.Use == collector.RuleExpired:
			logger.Info("An accept rule is past its until; its finding is reported again", append(args, "until", r.Rule.Until)...)
		}
	}
}
