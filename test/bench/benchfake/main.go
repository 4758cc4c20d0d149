// Command cks-drift-benchfake runs the scale benchmark's simulated cloud in a process of its own:
// the fake CloudStack API with N CKS clusters (3 VMs each) plus VMs of no cluster, and one fake
// control node (SSH server) per cluster, all on loopback, with injected API and handshake
// latency and a share of control nodes that hang in the handshake. It writes an exporter
// configuration, the client key and world.json (addresses, counts, clusters) into -out, serves
// counters on /bench/stats and runs until it is killed.
//
//	go run ./test/bench/benchfake -clusters 1000 -latency 50ms -handshake 200ms -hang 0.03 -out /tmp/w
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

func main() {
	var (
		spec world.Spec
		cfg  world.Config
		out  = flag.String("out", "", "folder for the configuration, the key and world.json (required)")
	)
	flag.IntVar(&spec.Clusters, "clusters", 10, "CKS clusters (1 control and 2 worker VMs each)")
	flag.IntVar(&spec.StrayVMs, "strays", 20000, "VMs that belong to no cluster")
	flag.Float64Var(&spec.ProjectShare, "projects", 0.1, "share of clusters owned by a project")
	flag.Float64Var(&spec.HangShare, "hang", 0.03, "share of control nodes that hang in the SSH handshake")
	flag.DurationVar(&spec.Latency, "latency", 50*time.Millisecond, "latency added to every API answer")
	flag.DurationVar(&spec.Handshake, "handshake", 200*time.Millisecond, "delay of every control node before the SSH handshake")
	flag.Float64Var(&spec.DriftShare, "drift", 0.05, "share of clusters with drift (one piece each, of the kinds the API shows, in turn)")
	d := config.Defaults() // the written settings default to the configuration's
	flag.IntVar(&cfg.Concurrency, "concurrency", d.Check.Concurrency, "check.concurrency of the written configuration")
	flag.DurationVar(&cfg.SSHTimeout, "ssh-timeout", d.SSH.Timeout, "ssh.timeout of the written configuration")
	flag.IntVar(&cfg.PageSize, "page-size", d.CloudStack.PageSize, "cloudstack.page_size of the written configuration")
	flag.BoolVar(&cfg.IncludeProjects, "include-projects", d.Check.IncludeProjects, "check.include_projects of the written configuration")
	flag.IntVar(&cfg.NotifierConcurrency, "notifier-concurrency", d.Notifier.Concurrency, "notifier.concurrency of the written configuration")
	flag.StringVar(&cfg.HostKeyPolicy, "host-key-policy", string(d.SSH.HostKeyPolicy), "ssh.host_key_policy of the written configuration")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "cks-drift-benchfake: -out is required")
		os.Exit(2)
	}
	if err := run(spec, cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cks-drift-benchfake:", err)
		os.Exit(1)
	}
}

func run(spec world.Spec, cfg world.Config, out string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	w, err := world.Build(spec)
	if err != nil {
		return err
	}
	defer w.Close()
	built := time.Since(start)
	configFile, err := w.WriteFiles(out, cfg)
	if err != nil {
		return err
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bench/stats", func(rw http.ResponseWriter, _ *http.Request) {
		s := world.Stats{API: w.APICalls(), APIBytes: w.CS.AnswerBytes(), SSH: w.SSH(), VmHWMKiB: vmHWM()}
		for _, n := range s.API {
			s.APITotal += n
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(s)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	info := world.Info{
		Endpoint: w.CS.Endpoint(), APIKey: w.CS.APIKey(), SecretKey: w.CS.SecretKey(),
		KeyFile: filepath.Join(filepath.Dir(configFile), "id_ed25519"), ConfigFile: configFile,
		StatsURL: "http://" + l.Addr().String() + "/bench/stats", PID: os.Getpid(),
		Spec: world.SpecJSON{Clusters: spec.Clusters, StrayVMs: spec.StrayVMs, ProjectShare: spec.ProjectShare, HangShare: spec.HangShare,
			Latency: spec.Latency.Seconds(), Handshake: spec.Handshake.Seconds(), DriftShare: spec.DriftShare},
		Counts: w.Counts, Clusters: w.Clusters, BuildTime: built.Seconds(),
	}
	raw, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	// Written last and renamed into place: its presence says that everything serves.
	tmp := filepath.Join(out, "world.json.tmp")
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(out, "world.json")); err != nil {
		return err
	}
	fmt.Printf("cks-drift-benchfake: %d clusters (%d hanging, %d with drift), %d VMs, %d port-forwarding rules; API %s; stats %s; built in %s\n",
		spec.Clusters, w.Counts.Hanging, w.Counts.Drifting, w.Counts.VMs+w.Counts.ProjectVMs, w.Counts.Rules+w.Counts.ProjectRules,
		info.Endpoint, info.StatsURL, built.Round(time.Millisecond))
	<-ctx.Done()
	return nil
}

// vmHWM returns this process's peak resident set size in KiB.
func vmHWM() int64 {
	peak, _ := world.Memory(0)
	return peak
}
