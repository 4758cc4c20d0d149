package notifier

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// AlertName is the name of every alert the notifier raises.
const AlertName = "KUBERNETES.CLUSTER.VM.MAP.CHECK"

// alertSuffix follows every finding's message (which never ends with a full stop) in its alert.
const alertSuffix = ". This is only reported, nothing was changed. Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

// maxDescription is generateAlert's limit on the description.
const maxDescription = 999

// Resolution returns the message of a side that matches again.
func Resolution(side collector.Side, cluster string) string {
	if side == collector.SideNode {
		return fmt.Sprintf("The VM map of Kubernetes cluster %s matches the Kubernetes nodes of the cluster again", cluster)
	}
	return fmt.Sprintf("The VM map of Kubernetes cluster %s matches the VMs of the cluster in CloudStack again", cluster)
}

// WarnAnnotation and InfoAnnotation are the texts of the admins-only annotations on the cluster.
func WarnAnnotation(message string) string { return "[WARN] " + clean(message) }

// InfoAnnotation is the annotation of a resolution.
func InfoAnnotation(message string) string { return "[INFO] " + clean(message) }

// AlertDescription is a finding's alert text, cut to what generateAlert accepts.
func AlertDescription(message string) string {
	return cutRunes(clean(message)+alertSuffix, maxDescription)
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

// clean drops the control characters of a text for CloudStack. Names and messages come from
// CloudStack and from the nodes' kubectl output: an escape sequence or a line break in them must
// not reach an admin's terminal, mail or the UI's layout as such.
func clean(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// summaryDescription sums up the findings that the cap kept from being alerted one by one.
func summaryDescription(capped map[string]int, limit int, findingsURL string) string {
	total := 0
	var parts []string
	for _, name := range sortedNames(capped) {
		total += capped[name]
		parts = append(parts, fmt.Sprintf("%s: %d", name, capped[name]))
	}
	d := fmt.Sprintf("%d more new findings of VM map drift were not alerted one by one (at most %d alerts per cycle). They are logged and annotated on their clusters; see %s for all of them. By cluster: %s.",
		total, limit, findingsWhere(findingsURL), strings.Join(parts, ", "))
	return cutRunes(clean(d)+alertSuffix[1:], maxDescription)
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
