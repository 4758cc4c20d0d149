package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
)

// ServeOptions say where and how to serve HTTP.
type ServeOptions struct {
	TelemetryPath string
	Web           *web.FlagConfig
	// Listener, when set, is served instead of the addresses in Web (tests use 127.0.0.1:0).
	Listener net.Listener
}

// Run serves HTTP, runs the check loop and reloads on SIGHUP until ctx ends; then it stops the
// server and lets the cycle under way end (its context is cancelled, so it ends promptly).
func (e *Exporter) Run(ctx context.Context, o ServeOptions) error {
	handler, err := e.handler(o.TelemetryPath)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler,
		ErrorLog: slog.NewLogLogger(e.logger.Handler(), slog.LevelDebug)} // TLS handshake errors of scanners
	e.httpLimits.apply(srv)
	ls := []net.Listener{o.Listener}
	if o.Listener == nil {
		if ls, err = listeners(o.Web); err != nil {
			return err
		}
	}
	conns := newConnTable(e.httpLimits.MaxConnections, e.conns)
	conns.track(srv)
	for i, l := range ls {
		ls[i] = conns.listener(l)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); e.loop(ctx) }()
	go func() { defer wg.Done(); e.dispatchEvents(ctx) }()
	go func() { defer wg.Done(); e.runEventBus(ctx) }()
	go func() { defer wg.Done(); e.reloadOnHUP(ctx) }()

	serveErr := make(chan error, 1)
	go func() { serveErr <- web.ServeMultiple(ls, srv, o.Web, e.logger) }()

	select {
	case <-ctx.Done():
		err = nil
	case err = <-serveErr:
	}
	cancel()
	shutdownCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (e *Exporter) reloadOnHUP(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			_ = e.requestReload(ctx) // logged and counted by the loop
		}
	}
}
