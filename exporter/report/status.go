package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The status page is rendered on the server from the last snapshot and needs no JavaScript. Every
// name on it comes from CloudStack or a control node and is escaped by html/template; the
// Content-Security-Policy allows nothing but the page's own style sheet, so that even a name
// that slipped through escaping could run nothing.
const StatusCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// maxStatusRows bounds each table of the status page, so that a cloud with thousands of findings
// still gets a page a browser can show; the rest is in /findings.
const maxStatusRows = 500

//go:embed status.html.tmpl status.css
var statusFiles embed.FS

var statusTemplates = template.Must(template.New("status").Funcs(template.FuncMap{
	"when":     formatTime,
	"reason":   ReasonText,
	"ago":      formatAgo,
	"at":       formatAt,
	"seconds":  formatSeconds,
	"span":     formatSpan,
	"announce": announcementLines,
	"guide":    guideOf,
	"runbook":  RunbookURL,
}).ParseFS(statusFiles, "status.html.tmpl"))

// StatusPage is what the templates render: the report of a snapshot laid out in tables.
type StatusPage struct {
	Version       string
	TelemetryPath string
	Now           time.Time
	Report        Report
	Duration      time.Duration
	Kinds         []kindCount
	Filter        Filter
	FilterError   string
	// Groups are the clusters with findings, each with its rows; at most maxStatusRows rows in all.
	Groups       []findingGroup
	MoreFindings int           // rows left out
	Accepted     []acceptedRow // rows of the accepted findings, at most maxStatusRows
	MoreAccepted int
	// Resolved are the recently resolved findings, newest first: at most maxResolvedRows on the
	// front page, a cluster's whole history on its own page.
	Resolved     []resolvedRow
	MoreResolved int
	// HistoryPerCluster is how many resolved findings of a cluster the history keeps.
	HistoryPerCluster int
	Unreachable       []ClusterReport
	Skipped           []ClusterReport
	Cluster           *ClusterReport // the per-cluster page's cluster
	// NodeSource is check.node_source, whose words explain a reason (ReasonText).
	NodeSource string
}

// maxResolvedRows bounds the front page's history; each cluster's page shows all of its own
// (collector.MaxResolvedPerCluster).
const maxResolvedRows = 50

type kindCount struct {
	Kind  collector.Kind
	Count int
}

// findingGroup is one cluster's rows of the findings table.
type findingGroup struct {
	*ClusterReport
	Rows []FindingReport
}

type acceptedRow struct {
	ClusterID   string
	ClusterName string
	collector.AcceptedFinding
}

type resolvedRow struct {
	ClusterID   string
	ClusterName string
	ResolvedReport
}

// Fill lays out the tables of the selected clusters.
func (p *StatusPage) Fill(clusters []ClusterReport) {
	rows := 0
	maxResolved := maxResolvedRows
	if p.Cluster != nil {
		maxResolved = collector.MaxResolved
	}
	for i := range clusters {
		c := &clusters[i]
		if n := min(len(c.Findings), maxStatusRows-rows); n > 0 {
			p.Groups = append(p.Groups, findingGroup{ClusterReport: c, Rows: c.Findings[:n]})
			rows += n
			p.MoreFindings += len(c.Findings) - n
		} else {
			p.MoreFindings += len(c.Findings)
		}
		for _, a := range c.Accepted {
			if len(p.Accepted) == maxStatusRows {
				p.MoreAccepted++
				continue
			}
			p.Accepted = append(p.Accepted, acceptedRow{ClusterID: c.ID, ClusterName: c.Name, AcceptedFinding: a})
		}
		for _, r := range c.Resolved {
			p.Resolved = append(p.Resolved, resolvedRow{ClusterID: c.ID, ClusterName: c.Name, ResolvedReport: r})
		}
		switch {
		case c.Unreachable() && len(p.Unreachable) < maxStatusRows:
			p.Unreachable = append(p.Unreachable, *c)
		case !c.Checked && len(p.Skipped) < maxStatusRows:
			p.Skipped = append(p.Skipped, *c)
		}
	}
	// Newest first across clusters, as each cluster's history already is.
	slices.SortStableFunc(p.Resolved, func(a, b resolvedRow) int { return b.ResolvedAt.Compare(a.ResolvedAt) })
	if len(p.Resolved) > maxResolved {
		p.MoreResolved = len(p.Resolved) - maxResolved
		p.Resolved = p.Resolved[:maxResolved]
	}
}

// NewStatusPage lays out the header of the status page of a report made at now.
func NewStatusPage(r Report, version, telemetryPath string, now time.Time) *StatusPage {
	p := &StatusPage{Version: version, TelemetryPath: telemetryPath, Now: now.UTC(), Report: r, HistoryPerCluster: collector.MaxResolvedPerCluster}
	if r.Cycle.Start != nil && r.Cycle.End != nil {
		p.Duration = r.Cycle.End.Sub(*r.Cycle.Start).Round(time.Millisecond)
	}
	for _, k := range collector.Kinds {
		p.Kinds = append(p.Kinds, kindCount{Kind: k, Count: r.Summary.ByKind[k]})
	}
	return p
}

// CSS is the status page's style sheet.
func CSS() []byte {
	css, _ := statusFiles.ReadFile("status.css")
	return css
}

// Render writes the page name whole or not at all: a template error leaves no half page behind,
// answers 500 and is returned for the caller to log.
func Render(w http.ResponseWriter, code int, name string, p *StatusPage) error {
	var buf bytes.Buffer
	if err := statusTemplates.ExecuteTemplate(&buf, name, p); err != nil {
		http.Error(w, "could not render the status page", http.StatusInternalServerError)
		return fmt.Errorf("render the status page %s: %w", name, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", StatusCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
	return nil
}

func formatTime(t *time.Time, now time.Time) string {
	if t == nil {
		return "never"
	}
	ago := now.Sub(*t).Round(time.Second)
	if ago < 0 {
		ago = 0
	}
	return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), ago)
}

// ReasonText explains a reason label of cks_drift_kubectl_failures_total in words an operator
// can act on, in the words of the node source (check.node_source) that gave it: the two share
// some labels (timeout, bad_output, too_many_nodes, ...) that mean the same stage, not the same
// thing to check.
func ReasonText(source, reason string) string {
	if source == "kubernetes_api" {
		return apiReasonText(reason)
	}
	return sshReasonText(reason)
}

func sshReasonText(reason string) string {
	switch reason {
	case "no_target":
		return "no SSH address: the cluster has no port-forwarding rule to port 22 of its first control VM"
	case "dial":
		return "the control node's SSH port could not be reached"
	case "timeout":
		return "the control node did not answer within ssh.timeout"
	case "handshake":
		return "the SSH handshake failed"
	case "auth":
		return "the control node refused the key: check ssh.user and ssh.private_key_file"
	case "host_key_unknown":
		return "the control node's host key is not in ssh.known_hosts_file"
	case "host_key_changed":
		return "the control node's host key changed since it was pinned (re-installed? see --ssh.forget-host-key)"
	case "exit_status":
		return "kubectl failed on the control node"
	case "output_too_large", "too_many_nodes":
		return "kubectl printed more than the exporter reads"
	case "bad_output":
		return "kubectl printed something that is not a node list"
	}
	return commonReasonText(reason)
}

func apiReasonText(reason string) string {
	switch reason {
	case "kubeconfig_unavailable":
		return "no usable kubeconfig: none in kubernetes_api.kubeconfig_dir and none from CloudStack (getKubernetesClusterConfig), or it cannot be used"
	case "api_unreachable":
		return "the cluster's Kubernetes API server could not be reached (connection refused, no route, no such name)"
	case "unauthorized":
		return "the Kubernetes API server refused the kubeconfig's credential or its right to list nodes (the detail has the server's message)"
	case "tls":
		return "the Kubernetes API server's certificate does not verify against the kubeconfig's CA"
	case "timeout":
		return "the Kubernetes API server did not answer within kubernetes_api.timeout"
	case "too_many_nodes":
		return "the Kubernetes API server listed more nodes than ssh.max_nodes"
	case "output_too_large":
		return "an answer of the Kubernetes API server was larger than the exporter reads"
	case "bad_output":
		return "the Kubernetes API server's answer is not a node list"
	}
	return commonReasonText(reason)
}

func commonReasonText(reason string) string {
	switch reason {
	case "not_listed", "cancelled":
		return "the cycle ended before the nodes were listed"
	}
	return reason
}
