package exporter

import (
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"net/http"
)

// handler returns every endpoint of the exporter. The metrics and /findings are served from the
// last snapshot and never wait for CloudStack or SSH.
func (e *Exporter) handler(telemetryPath string) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle(telemetryPath, e.exposition)
	mux.HandleFunc("GET /findings", e.serveFindings)
	mux.HandleFunc("POST /alertmanager/webhook", e.serveWebhook)
	mux.Handle("POST /cloudstack/events", e.cloudStackEvents())
	mux.HandleFunc("GET /-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("Healthy\n"))
	})
	mux.HandleFunc("GET /-/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !e.ready.Load() {
			http.Error(w, "Not ready: the first check cycle has not finished", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("Ready\n"))
	})
	mux.HandleFunc("POST /-/reload", func(w http.ResponseWriter, r *http.Request) {
		if !e.lifecycle.allow(w, "reload") {
			return
		}
		if err := e.requestReload(r.Context()); err != nil {
			// The reason names files and settings: it goes to the log, not to any caller.
			http.Error(w, "Reload failed, the previous configuration stays in use; the exporter's log says why", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("Reloaded\n"))
	})
	mux.HandleFunc("POST /-/check", func(w http.ResponseWriter, _ *http.Request) {
		if !e.lifecycle.allow(w, "check") || !e.lifecycle.allowCheck(w) {
			return
		}
		e.requestCycle()
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("Check cycle queued: it starts now, or when the cycle under way ends\n"))
	})
	e.routeStatus(mux, telemetryPath)
	return mux, nil
}

func (e *Exporter) serveFindings(w http.ResponseWriter, r *http.Request) {
	filter, err := report.ParseFilter(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rep := report.New(e.lastSnapshot(), e.reportContext())
	rep.Clusters = filter.Apply(rep.Clusters)
	w.Header().Set("Content-Type", "application/json")
	// curl in a terminal shows it: no unsafe character raw (report.WriteJSON), as for --once.
	if err := report.WriteJSON(w, rep); err != nil {
		e.logger.Debug("Could not write /findings", "err", err)
	}
}
