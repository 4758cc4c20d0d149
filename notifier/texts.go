package notifier

import (
	"fmt"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// AlertName is the name of every alert the notifier raises.
const AlertName = "KUBERNETES.CLUSTER.VM.MAP.CHECK"

// alertSuffix follows every finding's message in its alert.
const alertSuffix = " This is only reported, nothing was changed. Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

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
func WarnAnnotation(message string) string { return "[WARN] " + message }

// InfoAnnotation is the annotation of a resolution.
func InfoAnnotation(message string) string { return "[INFO] " + message }

// AlertDescription is a finding's alert text, cut to what generateAlert accepts.
func AlertDescription(message string) string {
	return cutRunes(message+alertSuffix, maxDescription)
}

// summaryDescription sums up the findings that the cap kept from being alerted one by one.
func summaryDescription(capped map[string]int, limit int, findingsURL string) string {
	total := 0
	var parts []string
	for _, name := range sortedNames(capped) {
		total += capped[name]
		parts = append(parts, fmt.Sprintf("%s: %d", name, capped[name]))
	}
	where := "/findings on the cks-drift-exporter"
	if findingsURL != "" {
		where = findingsURL
	}
	d := fmt.Sprintf("%d more new findings of VM map drift were not alerted one by one (at most %d alerts per cycle). They are logged and annotated on their clusters; see %s for all of them. By cluster: %s.",
		total, limit, where, strings.Join(parts, ", "))
	return cutRunes(d+alertSuffix, maxDescription)
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
