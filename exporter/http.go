package exporter

import (
	"encoding/json"
	"net/http"

	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
)

// Handler returns every endpoint of the exporter. The metrics and /findings are served from the
// last snapshot and never wait for CloudStack or SSH.
func (e *Exporter) Handler(telemetryPath string) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle(telemetryPath, e.exposition)
	mux.HandleFunc("GET /findings", e.serveFindings)
	mux.HandleFunc("POST /alertmanager/webhook", e.serveWebhook)
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
		if err := e.Reload(r.Context()); err != nil {
			http.Error(w, "Reload failed, the previous configuration stays in use: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("Reloaded\n"))
	})
	mux.HandleFunc("POST /-/check", func(w http.ResponseWriter, _ *http.Request) {
		e.Trigger()
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("Check cycle queued: it starts now, or when the cycle under way ends\n"))
	})
	landing, err := web.NewLandingPage(web.LandingConfig{
		Name:        "CKS Drift Exporter",
		Description: "Checks the VM maps of CloudStack Kubernetes Service clusters against CloudStack's VMs and the Kubernetes nodes",
		Version:     version.Info(),
		Links: []web.LandingLinks{
			{Address: telemetryPath, Text: "Metrics"},
			{Address: "/findings", Text: "Findings", Description: "the last cycle's findings as JSON"},
			{Address: "/-/healthy", Text: "Health"},
			{Address: "/-/ready", Text: "Readiness"},
		},
	})
	if err != nil {
		return nil, err
	}
	mux.Handle("GET /{$}", landing)
	return mux, nil
}

func (e *Exporter) serveFindings(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(NewReport(e.Snapshot())); err != nil {
		e.logger.Debug("Could not write /findings", "err", err)
	}
}
