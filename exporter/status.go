package exporter

import (
	"net/http"

	"github.com/prometheus/common/version"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// routeStatus serves the status page at /, a page per cluster at /clusters/{id} and the page's
// style sheet.
func (e *Exporter) routeStatus(mux *http.ServeMux, telemetryPath string) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page := e.statusPage(telemetryPath)
		f, err := report.ParseFilter(r.URL.Query())
		if err != nil {
			page.FilterError = err.Error()
		}
		page.Filter = f
		page.Fill(f.Apply(page.Report.Clusters))
		e.render(w, http.StatusOK, "index", page)
	})
	mux.HandleFunc("GET /clusters/{id}", func(w http.ResponseWriter, r *http.Request) {
		page := e.statusPage(telemetryPath)
		id := safetext.Escape(r.PathValue("id"))
		for i := range page.Report.Clusters {
			if page.Report.Clusters[i].ID == id {
				page.Cluster = &page.Report.Clusters[i]
				page.Fill(page.Report.Clusters[i : i+1])
				e.render(w, http.StatusOK, "cluster", page)
				return
			}
		}
		e.render(w, http.StatusNotFound, "missing", page)
	})
	mux.HandleFunc("GET /status.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=300")
		_, _ = w.Write(report.CSS())
	})
}

func (e *Exporter) statusPage(telemetryPath string) *report.StatusPage {
	x := e.reportContext()
	p := report.NewStatusPage(report.New(e.lastSnapshot(), x).Printable(), version.Version, telemetryPath, x.Now)
	cfg, _ := e.current()
	p.NodeSource = string(cfg.Check.NodeSource)
	return p
}

// reportContext is what the status page and /findings add to the snapshot: the time, what the
// notifier announced, and CloudStack's UI.
func (e *Exporter) reportContext() report.Context {
	cfg, _ := e.current()
	return report.Context{Now: e.now(), Announcements: e.notifier.View(), UIURL: cfg.CloudStack.UI()}
}

func (e *Exporter) render(w http.ResponseWriter, code int, name string, p *report.StatusPage) {
	if err := report.Render(w, code, name, p); err != nil {
		e.logger.Error("Could not render the status page", "page", name, "err", err)
	}
}
