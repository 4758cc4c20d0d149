package exporter

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/prometheus/common/version"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// The status page is rendered on the server from the last snapshot and needs no JavaScript. Every
// name on it comes from CloudStack or a control node and is escaped by html/template; the
// Content-Security-Policy allows nothing but the page's own style sheet, so that even a name
// that slipped through escaping could run nothing.
const statusCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// maxStatusRows bounds each table of the status page, so that a cloud with thousands of findings
// still gets a page a browser can show; the rest is in /findings.
const maxStatusRows = 500

//go:embed status.html.tmpl status.css
var statusFiles embed.FS

var statusTemplates = template.Must(template.New("status").Funcs(template.FuncMap{
	"when":   formatTime,
	"reason": reasonText,
}).ParseFS(statusFiles, "status.html.tmpl"))

// statusPage is what the templates render.
type statusPage struct {
	Version       string
	TelemetryPath string
	Now           time.Time
	Report        Report
	Duration      time.Duration
	Kinds         []kindCount
	Filter        Filter
	FilterError   string
	Findings      []findingRow // rows of the findings table, at most maxStatusRows
	MoreFindings  int          // rows left out
	Unreachable   []ClusterReport
	Skipped       []ClusterReport
	Cluster       *ClusterReport // the per-cluster page's cluster
}

type kindCount struct {
	Kind  collector.Kind
	Count int
}

type findingRow struct {
	ClusterID   string
	ClusterName string
	collector.Finding
}

// routeStatus serves the status page at /, a page per cluster at /clusters/{id} and the page's
// style sheet.
func (e *Exporter) routeStatus(mux *http.ServeMux, telemetryPath string) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page := e.statusPage(telemetryPath)
		f, err := ParseFilter(r.URL.Query())
		if err != nil {
			page.FilterError = err.Error()
		}
		page.Filter = f
		page.fill(f.Apply(page.Report.Clusters))
		e.render(w, http.StatusOK, "index", page)
	})
	mux.HandleFunc("GET /clusters/{id}", func(w http.ResponseWriter, r *http.Request) {
		page := e.statusPage(telemetryPath)
		id := printable(r.PathValue("id"))
		for i := range page.Report.Clusters {
			if page.Report.Clusters[i].ID == id {
				page.Cluster = &page.Report.Clusters[i]
				page.fill(page.Report.Clusters[i : i+1])
				e.render(w, http.StatusOK, "cluster", page)
				return
			}
		}
		e.render(w, http.StatusNotFound, "missing", page)
	})
	mux.HandleFunc("GET /status.css", func(w http.ResponseWriter, _ *http.Request) {
		css, _ := statusFiles.ReadFile("status.css")
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=300")
		_, _ = w.Write(css)
	})
}

func (e *Exporter) statusPage(telemetryPath string) *statusPage {
	r := NewReport(e.Snapshot()).Printable()
	p := &statusPage{Version: version.Version, TelemetryPath: telemetryPath, Now: e.now().UTC(), Report: r}
	if r.Cycle.Start != nil && r.Cycle.End != nil {
		p.Duration = r.Cycle.End.Sub(*r.Cycle.Start).Round(time.Millisecond)
	}
	for _, k := range collector.Kinds {
		p.Kinds = append(p.Kinds, kindCount{Kind: k, Count: r.Summary.ByKind[k]})
	}
	return p
}

// fill lays out the tables of the selected clusters.
func (p *statusPage) fill(clusters []ClusterReport) {
	for _, c := range clusters {
		for _, f := range c.Findings {
			if len(p.Findings) == maxStatusRows {
				p.MoreFindings++
				continue
			}
			p.Findings = append(p.Findings, findingRow{ClusterID: c.ID, ClusterName: c.Name, Finding: f})
		}
		switch {
		case c.Unreachable() && len(p.Unreachable) < maxStatusRows:
			p.Unreachable = append(p.Unreachable, c)
		case !c.Checked && len(p.Skipped) < maxStatusRows:
			p.Skipped = append(p.Skipped, c)
		}
	}
}

// render writes a page whole or not at all: a template error leaves no half page behind.
func (e *Exporter) render(w http.ResponseWriter, code int, name string, p *statusPage) {
	var buf bytes.Buffer
	if err := statusTemplates.ExecuteTemplate(&buf, name, p); err != nil {
		e.logger.Error("Could not render the status page", "page", name, "err", err)
		http.Error(w, "could not render the status page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", statusCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
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

// reasonText explains a reason label of cks_drift_kubectl_failures_total in words an operator
// can act on.
func reasonText(reason string) string {
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
	case "not_listed", "cancelled":
		return "the cycle ended before the nodes were listed"
	default:
		return reason
	}
}
