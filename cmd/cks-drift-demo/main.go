// Command cks-drift-demo runs the exporter against a simulated CloudStack cloud with drift
// already present, so that the exporter can be tried without a cloud.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
)

func main() {
	app := kingpin.New("cks-drift-demo", "Runs cks-drift-exporter against a simulated CloudStack cloud with VM map drift.")
	var (
		listen   = app.Flag("web.listen-address", "Address of the exporter.").Default("127.0.0.1:9862").String()
		dir      = app.Flag("dir", "Folder for the demo's configuration, key and state file.").Default(".demo").String()
		interval = app.Flag("interval", "Check interval of the demo.").Default("30s").Duration()
		simOnly  = app.Flag("simulator-only", "Run only the simulated cloud, and write an exporter's configuration for it into --dir.").Bool()
		source   = app.Flag("node-source", "Where node lists come from: ssh (kubectl on a simulated control node) or kubernetes_api (a fake Kubernetes API server per cluster, its kubeconfig from getKubernetesClusterConfig).").Default("ssh").Enum("ssh", "kubernetes_api")
		logCfg   = &promslog.Config{}
	)
	promslogflag.AddFlags(app, logCfg)
	kingpin.MustParse(app.Parse(os.Args[1:]))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if *simOnly {
		err = simulate(ctx, *dir)
	} else {
		err = run(ctx, *listen, *dir, *interval, *source, logCfg)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cks-drift-demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listen, dir string, interval time.Duration, source string, logCfg *promslog.Config) error {
	var apis *kubeAPIs
	check := fmt.Sprintf("  interval: %s\n", interval)
	if source == "kubernetes_api" {
		apis = newKubeAPIs()
		defer apis.Close()
		check += "  node_source: kubernetes_api\n"
	}
	sim, err := newWorld(apis)
	if err != nil {
		return err
	}
	defer sim.Close()
	// The simulated cloud is new on every run: so is the exporter's state.
	_ = os.Remove(filepath.Join(dir, "state.db"))
	cfgPath, err := sim.WriteFiles(dir, check, fmt.Sprintf("  max_alerts_per_cycle: %d\n", maxAlerts))
	if err != nil {
		return err
	}
	// The exporter's log goes to a file beside its state, not amid the table below and what
	// CloudStack receives (the first cycle's host-key pins, say).
	logPath := filepath.Join(dir, "exporter.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	logCfg.Writer = logFile
	e, err := exporter.New(exporter.Options{ConfigFile: cfgPath, Logger: promslog.New(logCfg), EnableLifecycle: true}) // POST /-/reload and /-/check, as with --web.enable-lifecycle
	if err != nil {
		return err
	}
	defer e.Close()

	fmt.Printf("== One check cycle, as `cks-drift-exporter --once` prints it (the exporter's log: %s):\n", logPath)
	fmt.Println()
	e.RunOnce(ctx, os.Stdout, report.FormatTable)
	fmt.Println()
	printNotShown(os.Stdout)

	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	base := "http://" + l.Addr().String()
	fmt.Printf(`
== The exporter now checks the simulated cloud every %s.
   Status page:    %s/
   Metrics:        %s/metrics
   Findings:       %s/findings (?problems=1, ?cluster=NAME, ?kind=KIND)
   Configuration:  %s (reload: curl -X POST %s/-/reload; lifecycle endpoints are on in the demo)
   Log:            %s
   CloudStack API: %s (simulated)
   What CloudStack receives from the notifier is printed below. Stop with Ctrl-C.

`, interval, base, base, base, cfgPath, base, logPath, sim.CloudStack.Endpoint())
	go watchWrites(ctx, sim)
	webCfg := &web.FlagConfig{WebListenAddresses: &[]string{listen}, WebSystemdSocket: new(bool), WebConfigFile: new(string)}
	return e.Run(ctx, exporter.ServeOptions{TelemetryPath: "/metrics", Web: webCfg, Listener: l})
}
