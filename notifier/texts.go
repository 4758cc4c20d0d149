package notifier

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// AlertName is the name of every alert the notifier raises.
const AlertName = "KUBERNETES.CLUSTER.VM.MAP.CHECK"

// reportedOnly follows every alert's text, after the cluster's identity, before its advice.
const reportedOnly = ". This is only reported, nothing was changed. "

// mixedAdvice ends a summary alert whose findings are of kinds with different advice.
const mixedAdvice = "The runbook of each finding is linked from the exporter's status page."

// advice is the last sentence of the alerts of a kind, as its declaration says; a kind that is
// not declared (a newer exporter's, in the state file) gets mixedAdvice.
func advice(k collector.Kind) string {
	if d, ok := k.Declaration(); ok {
		return d.Advice
	}
	return mixedAdvice
}

// counted is n and the word for one or for many: "1 alert", "5 alerts".
func counted(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, oneOrMany(n, one, many))
}

// maxDescription is generateAlert's limit on the description, in UTF-16 code units: CloudStack
// checks the length of the Java string.
const maxDescription = 999

// maxOwnerName is the most characters of an account or project name in an alert, so that the
// identity of the cluster never crowds out the finding.
const maxOwnerName = 100

// ClusterRef names a cluster without ambiguity: its name is unique only per account, and a
// tenant may choose the name of another tenant's cluster (or one that reads like it), so the
// uuid and the owner say which cluster is meant.
type ClusterRef struct {
	ID, Name, Account, Project string
}

// Identity is "Cluster <uuid> of account <account>[, project <project>]", the names made one
// printable line. A project's cluster has no account in CloudStack's answers (only its project):
// then "Cluster <uuid> of project <project>".
func (c ClusterRef) Identity() string {
	account, project := safetext.Line(c.Account, maxOwnerName), safetext.Line(c.Project, maxOwnerName)
	s := "Cluster " + safetext.Line(c.ID, 64)
	switch {
	case account != "" && project != "":
		s += " of account " + account + ", project " + project
	case account != "":
		s += " of account " + account
	case project != "":
		s += " of project " + project
	}
	return s
}

// Resolution returns the message of a side that matches again.
func Resolution(side collector.Side, cluster string) string {
	return resolution(side, cluster, "")
}

// StuckResolution returns the message of a cluster that left the operation state it was stuck in.
func StuckResolution(cluster, state string) string {
	return resolution(collector.SideOperation, cluster, state)
}

// resolution returns the message of a side's resolution, as the side declares it; state is the
// operation side's. A side that is not declared (a newer exporter's, in the state file) reads as
// the VM side.
func resolution(side collector.Side, cluster, state string) string {
	d := side.Declaration()
	if d.Resolution == nil {
		d = collector.SideVM.Declaration()
	}
	return d.Resolution(cluster, state)
}

// WarnAnnotation and InfoAnnotation are the texts of the admins-only annotations on the cluster
// (which the annotation itself identifies).
func WarnAnnotation(message string) string { return "[WARN] " + safetext.Line(message, 0) }

// FindingAnnotation is a finding's annotation: WarnAnnotation of its message, ending with the
// CloudStack event that explains it when there is one, "Last change: <type> by <username> at
// <created>" (the account where the event names no user; created in UTC, RFC 3339).
func FindingAnnotation(message string, cause collector.Cause) string {
	if cause.IsZero() {
		return WarnAnnotation(message)
	}
	who := cmp.Or(cause.Username, cause.Account, "an unknown user")
	return WarnAnnotation(fmt.Sprintf("%s. Last change: %s by %s at %s", strings.TrimSuffix(message, "."),
		safetext.Line(cause.Type, 64), safetext.Line(who, 64), cause.Created.UTC().Format(time.RFC3339)))
}

// InfoAnnotation is the annotation of a resolution.
func InfoAnnotation(message string) string { return "[INFO] " + safetext.Line(message, 0) }

// AlertDescription is a finding's alert text: the message, the cluster's identity and what to
// do, the advice of the finding's kind. Where generateAlert's limit is passed, the message is
// cut, never the identity.
func AlertDescription(kind collector.Kind, message string, c ClusterRef) string {
	tail := ". " + c.Identity() + reportedOnly + advice(kind)
	return cutUTF16(safetext.Line(message, 0), maxDescription-utf16Len(tail)) + tail
}

// annotationSummary is the one annotation of a cluster past max_annotations_per_cluster in a
// cycle: how many new findings were not annotated one by one.
func annotationSummary(cluster string, more, limit int, findingsURL string) string {
	return WarnAnnotation(fmt.Sprintf("%s on Kubernetes cluster %s %s not annotated one by one (at most %s per cluster and cycle); %s logged, and listed in %s",
		counted(more, "more new finding", "more new findings"), cluster, wasWere(more), counted(limit, "annotation", "annotations"), itThey(more), findingsWhere(findingsURL)))
}

// dayBudgetSummary is the one annotation in 24 hours of a cluster past
// max_announcements_per_cluster_per_day: how many new findings were not announced.
func dayBudgetSummary(cluster string, more, limit int, findingsURL string) string {
	return WarnAnnotation(fmt.Sprintf("%s on Kubernetes cluster %s %s not annotated or alerted one by one (at most %s per cluster in 24 hours); %s logged, and listed in %s",
		counted(more, "more new finding", "more new findings"), cluster, wasWere(more), counted(limit, "annotation and alert", "annotations and alerts"), itThey(more), findingsWhere(findingsURL)))
}

// findingsWhere names where the operator finds every finding.
func findingsWhere(findingsURL string) string {
	if findingsURL != "" {
		return findingsURL
	}
	return "/findings on the cks-drift-exporter"
}

// summaryDescription sums up the findings that the cap kept from being alerted one by one, by
// cluster uuid (two clusters may share a name), the most first: "<uuid> (<name>, account
// <account>[, project <project>]): <count>".
func summaryDescription(capped map[string]*cappedCount, limit int, findingsURL string) string {
	ids := make([]string, 0, len(capped))
	total := 0
	kinds := map[collector.Kind]int{}
	for id, c := range capped {
		ids = append(ids, id)
		total += c.Count
		for k, n := range c.Kinds {
			kinds[k] += n
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(capped[b].Count, capped[a].Count), strings.Compare(a, b))
	})
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		c := capped[id]
		parts = append(parts, fmt.Sprintf("%s (%s): %d", safetext.Line(id, 64), c.owned(), c.Count))
	}
	d := fmt.Sprintf("%s%s %s not alerted one by one (at most %s per cycle). %s logged and annotated on %s; see %s for every finding. By cluster: %s",
		counted(total, "more new finding", "more new findings"), ofKinds(kinds), wasWere(total), counted(limit, "alert", "alerts"),
		oneOrMany(total, "It is", "They are"), oneOrMany(total, "its cluster", "their clusters"),
		safetext.Line(findingsWhere(findingsURL), 0), strings.Join(parts, "; "))
	tail := reportedOnly + summaryAdvice(kinds)
	return cutUTF16(d, maxDescription-utf16Len(tail)) + tail
}

// ofKinds is " (2 node_version_mismatch, 1 unmapped_vm)": how many of each kind, the most first,
// then in the declared order; empty where the state does not say (a summary of an older release).
func ofKinds(kinds map[collector.Kind]int) string {
	if len(kinds) == 0 {
		return ""
	}
	order := make([]collector.Kind, 0, len(kinds))
	for k := range kinds {
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b collector.Kind) int {
		return cmp.Or(cmp.Compare(kinds[b], kinds[a]), cmp.Compare(kindIndex(a), kindIndex(b)), strings.Compare(string(a), string(b)))
	})
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s", kinds[k], safetext.Line(string(k), 64))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// kindIndex is a kind's place in collector.Kinds, after every declared kind for one that is not.
func kindIndex(k collector.Kind) int {
	if i := slices.Index(collector.Kinds, k); i >= 0 {
		return i
	}
	return len(collector.Kinds)
}

// summaryAdvice is the advice of the summary's kinds where they share one, else mixedAdvice.
func summaryAdvice(kinds map[collector.Kind]int) string {
	a := ""
	for k := range kinds {
		switch {
		case a == "":
			a = advice(k)
		case a != advice(k):
			return mixedAdvice
		}
	}
	if a == "" {
		return mixedAdvice
	}
	return a
}

// oneOrMany returns one for n == 1, else many: the words that agree with a count.
func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func wasWere(n int) string { return oneOrMany(n, "was", "were") }

func itThey(n int) string { return oneOrMany(n, "it is", "they are") }

// owned is "<name>, account <account>[, project <project>]" of a capped cluster.
func (c *cappedCount) owned() string {
	s := safetext.Line(c.Name, maxOwnerName)
	if a := safetext.Line(c.Account, maxOwnerName); a != "" {
		s += ", account " + a
	}
	if p := safetext.Line(c.Project, maxOwnerName); p != "" {
		s += ", project " + p
	}
	return s
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUTF16 cuts s to at most n UTF-16 code units, at a rune boundary.
func cutUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		units += utf16.RuneLen(r)
		if units > n {
			return s[:i]
		}
	}
	return s
}
