// Command cks-drift-exporter checks the VM maps of CloudStack Kubernetes Service clusters and
// serves the result to Prometheus.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

func main() {
	os.Exit(run())
}

func run() int {
	app := kingpin.New("cks-drift-exporter", "Checks the VM maps of CloudStack Kubernetes Service clusters against CloudStack's VMs and the Kubernetes nodes.")
	var (
		configFile    = app.Flag("config.file", "Configuration file.").Default("cks-drift-exporter.yml").String()
		configCheck   = app.Flag("config.check", "Validate the configuration file and, with one read-only call bounded by cloudstack.timeout (at most 10s), that CloudStack accepts the endpoint, the TLS certificate and the API keys; print the problems and exit (0 valid, 1 invalid). An unreachable CloudStack is reported, not failed.").Bool()
		checkOffline  = app.Flag("config.check.offline", "With --config.check, make no call to CloudStack.").Bool()
		preflight     = app.Flag("preflight", "Check, read-only, the API key and its role, one page of clusters, one login to a control node per zone and, with events.webhook.enabled, CloudStack's webhook to this exporter (its payload URL's path and port against --web.listen-address, its secret key, its last deliveries); print a checklist with what to fix and exit (0 all passed, 1 a check failed).").Bool()
		once          = app.Flag("once", "Run one check cycle, print the findings and exit: 0 no drift, 1 drift, 2 the check could not run, 3 no drift found but the nodes of a checked cluster could not be listed, 4 (as every mode) the state file is of a newer release's format. Sends no notifications.").Bool()
		onceFormat    = app.Flag("once.format", "Output of --once: table (columns capped), wide (every column and the message) or json.").Default(report.FormatTable).Enum(report.FormatTable, report.FormatWide, report.FormatJSON)
		forgetKeys    = app.Flag("ssh.forget-host-key", "Remove the pinned SSH host key of this cluster (uuid) from the state file and exit, after a control node was re-installed. Repeatable; the exporter must be stopped.").Strings()
		shardFromHost = app.Flag("check.shard-from-hostname", "Take check.shard from the ordinal at the end of the hostname (cks-drift-exporter-2 is shard 2), as the replicas of a StatefulSet are named; check.total_shards stays in the configuration.").Bool()
		lifecycle     = app.Flag("web.enable-lifecycle", "Serve POST /-/reload and POST /-/check (403 without this flag). SIGHUP always reloads.").Bool()
		telemetryPath = app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").String()
		webConfig     = kingpinflag.AddFlags(app, ":9862")
		logConfig     = &promslog.Config{}
	)
	promslogflag.AddFlags(app, logConfig)
	app.Version(version.Print("cks-drift-exporter"))
	app.HelpFlag.Short('h')
	if _, err := app.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logger := promslog.New(logConfig)
	shard, err := shardFromHostname(*shardFromHost, os.Hostname)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	if *configCheck {
		if err := exporter.CheckConfig(context.Background(), *configFile, shard, *checkOffline, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("%s: configuration is valid\n", *configFile)
		return 0
	}

	if *preflight {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		var listen []string // the ports a webhook's payload URL may name; unknown with systemd's sockets
		if !*webConfig.WebSystemdSocket {
			listen = *webConfig.WebListenAddresses
		}
		return exporter.Preflight(ctx, *configFile, listen, os.Stdout, logger)
	}

	if len(*forgetKeys) > 0 {
		return forgetHostKeys(*configFile, *forgetKeys, os.Stdout, os.Stderr)
	}

	e, err := exporter.New(exporter.Options{ConfigFile: *configFile, Logger: logger, Shard: shard, EnableLifecycle: *lifecycle})
	if err != nil {
		logger.Error("Could not start", "err", err)
		if errors.Is(err, state.ErrNewerFormat) {
			return exporter.ExitNewerState
		}
		if *once {
			return exporter.ExitCheckErr
		}
		return 1
	}
	defer e.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *once {
		return e.RunOnce(ctx, os.Stdout, *onceFormat)
	}
	logger.Info("Starting cks-drift-exporter", append([]any{"version", version.Info(), "build_context", version.BuildContext(),
		"config", *configFile}, e.Settings()...)...)
	if err := e.Run(ctx, exporter.ServeOptions{TelemetryPath: *telemetryPath, Web: webConfig}); err != nil {
		logger.Error("Exporter stopped", "err", err)
		return 1
	}
	return 0
}
