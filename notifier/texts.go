package notifier

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// AlertName is the name of every alert the notifier raises.
const AlertName = "KUBERNETES.CLUSTER.VM.MAP.CHECK"

// alertSuffix follows every alert's text, after the cluster's identity.
const alertSuffix = ". This is only reported, nothing was changed. Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

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

// InfoAnnotation is the annotation of a resolution.
func InfoAnnotation(message string) string { return "[INFO] " + safetext.Line(message, 0) }

// AlertDescription is a finding's alert text: the message, the cluster's identity and what to
// do. Where generateAlert's limit is passed, the message is cut, never the identity.
func AlertDescription(message string, c ClusterRef) string {
	return describe(safetext.Line(message, 0), c.Identity())
}

// describe joins an alert's text to the identity of what it is about and the suffix, within
// maxDescription.
func describe(text, identity string) string {
	tail := ". " + identity + alertSuffix
	return cutUTF16(text, maxDescription-utf16Len(tail)) + tail
}

// annotationSummary is the one annotation of a cluster past max_annotations_per_cluster in a
// cycle: how many new findings were not annotated one by one.
func annotationSummary(cluster string, more, limit int, findingsURL string) string {
	return WarnAnnotation(fmt.Sprintf("%d more new findings of VM map drift on Kubernetes cluster %s were not annotated one by one (at most %d annotations per cluster and cycle); they are logged, and listed in %s",
		more, cluster, limit, findingsWhere(findingsURL)))
}

// dayBudgetSummary is the one annotation in 24 hours of a cluster past
// max_announcements_per_cluster_per_day: how many new findings were not announced.
func dayBudgetSummary(cluster string, more, limit int, findingsURL string) string {
	return WarnAnnotation(fmt.Sprintf("%d more new findings of VM map drift on Kubernetes cluster %s were not annotated or alerted one by one (at most %d annotations and alerts per cluster in 24 hours); they are logged, and listed in %s",
		more, cluster, limit, findingsWhere(findingsURL)))
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
	for id, c := range capped {
		ids = append(ids, id)
		total += c.Count
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(capped[b].Count, capped[a].Count), strings.Compare(a, b))
	})
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		c := capped[id]
		parts = append(parts, fmt.Sprintf("%s (%s): %d", safetext.Line(id, 64), c.owned(), c.Count))
	}
	d := fmt.Sprintf("%d more new findings of VM map drift were not alerted one by one (at most %d alerts per cycle). They are logged and annotated on their clusters; see %s for all of them. By cluster: %s",
		total, limit, safetext.Line(findingsWhere(findingsURL), 0), strings.Join(parts, "; "))
	tail := alertSuffix
	return cutUTF16(d, maxDescription-utf16Len(tail)) + tail
}

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
