// Command bench is the scale benchmark of cks-drift-exporter (`make bench`).
//
// For every world size it starts the simulated cloud (test/bench/benchfake) in one process and
// the real exporter binary (cmd/cks-drift-exporter) in another, so that the exporter's peak RSS
// is its own. The exporter runs its first cycle at start (cold: it pins 1 host key per cluster);
// the benchmark then asks for a second one with POST /-/check (warm) and scrapes /metrics while
// it runs. API calls are counted by the fake, SSH connections and sessions by the fake control
// nodes. Beside every figure it puts the lower bound computed from the world's size and the
// injected latencies, and a one-cluster-at-a-time check (a process of its own, see
// sequential.go) measured against the same fake.
//
//	go run ./test/bench -clusters "10 100 1000 5000" [-update docs/benchmarks.md] [-go-bench]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// options are the benchmark's flags.
type options struct {
	runs        []worldRun
	strays      int
	latency     time.Duration
	handshake   time.Duration
	hang        float64
	projects    float64
	drift       float64
	concurrency int
	// hangingConcurrency is check.hanging_concurrency of the exporter (its default): the lane of
	// the nodes that timed out in the cycle before.
	hangingConcurrency int
	// notifierConcurrency is notifier.concurrency of the exporter.
	notifierConcurrency int
	sshTimeout          time.Duration
	pageSize            int
	includeProjects     bool
	hostKeyPolicy       string
	metricsRequests     int
	idleRequests        int
	seqSample           int
	update              string
	goBench             bool
	goBenchOnly         bool
	goBenchTime         string
	workdir             string
	keep                bool
	jsonOut             string
	exporterEnv         []string
	// profile is the folder of the exporter's profiles (profile.go); empty: none.
	profile string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sequential" {
		// The one-cluster-at-a-time reference, run by the benchmark as a process of its own.
		os.Exit(sequentialMain(os.Args[2:]))
	}
	o := defaultOptions()
	var clusters string
	flag.StringVar(&clusters, "clusters", "10 100 1000 5000 10000 10000@64",
		"worlds, separated by spaces or commas: clusters, or clusters@concurrency for a check.concurrency other than -concurrency")
	flag.IntVar(&o.strays, "strays", o.strays, "VMs that belong to no cluster, in every world")
	flag.DurationVar(&o.latency, "latency", o.latency, "latency the fake CloudStack adds to every API answer")
	flag.DurationVar(&o.handshake, "handshake", o.handshake, "delay of every fake control node before the SSH handshake")
	flag.Float64Var(&o.hang, "hang", o.hang, "share of control nodes that hang in the SSH handshake until ssh.timeout")
	flag.Float64Var(&o.projects, "projects", o.projects, "share of clusters (with their VMs and rules) owned by a project")
	flag.Float64Var(&o.drift, "drift", o.drift, "share of clusters with drift (one piece each, of the kinds the API shows, in turn)")
	flag.IntVar(&o.concurrency, "concurrency", o.concurrency, "check.concurrency of the exporter")
	flag.IntVar(&o.notifierConcurrency, "notifier-concurrency", o.notifierConcurrency, "notifier.concurrency of the exporter")
	flag.DurationVar(&o.sshTimeout, "ssh-timeout", o.sshTimeout, "ssh.timeout of the exporter and of the one-at-a-time check")
	flag.IntVar(&o.pageSize, "page-size", o.pageSize, "cloudstack.page_size of the exporter")
	flag.BoolVar(&o.includeProjects, "include-projects", o.includeProjects, "check.include_projects of the exporter")
	flag.StringVar(&o.hostKeyPolicy, "host-key-policy", o.hostKeyPolicy, "ssh.host_key_policy of the exporter (pin writes every first key to the bbolt state file)")
	flag.IntVar(&o.metricsRequests, "metrics-requests", 200, "GET /metrics requests spread over the warm cycle")
	flag.IntVar(&o.idleRequests, "idle-requests", 50, "GET /metrics requests between cycles")
	flag.IntVar(&o.seqSample, "seq-sample", 100, "clusters the one-at-a-time check visits per world (more clusters: extrapolated linearly)")
	flag.StringVar(&o.update, "update", "", "rewrite the results section of this file (docs/benchmarks.md)")
	flag.BoolVar(&o.goBench, "go-bench", false, "also run the Go benchmarks of collector and exporter (go test -bench -benchmem)")
	flag.BoolVar(&o.goBenchOnly, "go-bench-only", false, "run only the Go benchmarks")
	flag.StringVar(&o.goBenchTime, "go-benchtime", "1s", "-benchtime of the Go benchmarks")
	flag.StringVar(&o.workdir, "workdir", "", "folder for binaries, configurations and logs (default: a new temporary folder)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working folder")
	flag.StringVar(&o.profile, "profile", "", "build the exporter with -tags benchprofile and write its CPU and heap profiles of the warm cycle to this folder (the run's figures then include the profiling's cost)")
	flag.StringVar(&o.jsonOut, "json", "", "also write the raw results as JSON to this file")
	flag.Func("exporter-env", "NAME=VALUE added to the exporter's environment, e.g. GOMEMLIMIT=100MiB (repeatable)", func(v string) error {
		if !strings.Contains(v, "=") {
			return errors.New("want NAME=VALUE")
		}
		o.exporterEnv = append(o.exporterEnv, v)
		return nil
	})
	flag.Parse()
	runs, err := parseRuns(clusters, o.concurrency)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: -clusters:", err)
		os.Exit(2)
	}
	o.runs = runs
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// defaultOptions are the benchmark's worlds and the exporter's settings when no flag says
// otherwise: the exporter's settings default to the configuration's.
func defaultOptions() options {
	d := config.Defaults()
	return options{
		strays: 20000, latency: 50 * time.Millisecond, handshake: 200 * time.Millisecond, hang: 0.03, projects: 0.1, drift: 0.05,
		concurrency:         d.Check.Concurrency,
		hangingConcurrency:  d.Check.HangingConcurrency, // the world's configuration leaves it at the default
		notifierConcurrency: d.Notifier.Concurrency,
		sshTimeout:          d.SSH.Timeout,
		pageSize:            d.CloudStack.PageSize,
		includeProjects:     d.Check.IncludeProjects,
		hostKeyPolicy:       string(d.SSH.HostKeyPolicy),
	}
}

// spec is the world of n clusters that o describes.
func (o options) spec(n int) world.Spec {
	return world.Spec{Clusters: n, StrayVMs: o.strays, ProjectShare: o.projects, HangShare: o.hang, Latency: o.latency,
		Handshake: o.handshake, DriftShare: o.drift}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run from the module's root folder (make bench)")
	}
	dir := o.workdir
	if dir == "" {
		d, err := os.MkdirTemp("", "cks-drift-bench-")
		if err != nil {
			return err
		}
		dir = d
		if !o.keep {
			defer func() {
				if !o.keep {
					_ = os.RemoveAll(d)
				}
			}()
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	machine := describeMachine()
	rep := report{Machine: machine, Command: commandLine(), Options: o.describe()}

	if !o.goBenchOnly {
		logf("Working folder %s", dir)
		bins, err := buildBinaries(ctx, dir, o.profile != "")
		if err != nil {
			return err
		}
		for _, wr := range o.runs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			seq, measured := rep.sequential(wr.clusters) // one world size, one reference
			ro := o
			ro.concurrency = wr.concurrency
			res, err := runWorld(ctx, ro, bins, filepath.Join(dir, fmt.Sprintf("world-%d-c%d", wr.clusters, wr.concurrency)), wr.clusters, !measured)
			if err != nil {
				o.keep = true
				return fmt.Errorf("%s: %w (logs kept in %s)", wr, err, dir)
			}
			if measured {
				res.Seq = seq
			}
			rep.Worlds = append(rep.Worlds, res)
		}
	}
	if o.goBench || o.goBenchOnly {
		gb, err := runGoBenchmarks(ctx, o.goBenchTime)
		if err != nil {
			return err
		}
		rep.GoBench = gb
	}
	rep.Finished = time.Now().UTC()

	md := rep.markdown(o)
	fmt.Println()
	fmt.Print(md.all())
	raw, _ := json.MarshalIndent(rep, "", "  ")
	if o.keep && !o.goBenchOnly {
		_ = os.WriteFile(filepath.Join(dir, "results.json"), raw, 0o644)
	}
	if o.jsonOut != "" {
		if err := os.WriteFile(o.jsonOut, raw, 0o644); err != nil {
			return err
		}
	}
	if o.update != "" {
		if err := md.update(o.update); err != nil {
			return err
		}
		logf("Rewrote the results in %s", o.update)
	}
	return nil
}

// worldRun is one world of the benchmark: its size and the exporter's check.concurrency.
type worldRun struct {
	clusters, concurrency int
}

func (r worldRun) String() string {
	return fmt.Sprintf("%d clusters at concurrency %d", r.clusters, r.concurrency)
}

// parseRuns reads -clusters: "N" or "N@C", separated by spaces or commas.
func parseRuns(list string, concurrency int) ([]worldRun, error) {
	var runs []worldRun
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, c, hasC := strings.Cut(f, "@")
		r := worldRun{concurrency: concurrency}
		var err error
		if r.clusters, err = strconv.Atoi(n); err != nil || r.clusters < 1 {
			return nil, fmt.Errorf("%q is not a number of clusters", f)
		}
		if hasC {
			if r.concurrency, err = strconv.Atoi(c); err != nil || r.concurrency < 1 {
				return nil, fmt.Errorf("%q: %q is not a concurrency", f, c)
			}
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, errors.New("no world")
	}
	return runs, nil
}

// binaries are the programs the benchmark starts.
type binaries struct {
	exporter, fake, self string
}

// buildBinaries builds the exporter as `make build` does (static, trimmed) and the fake; with
// profile, the exporter has the pprof listener of -tags benchprofile.
func buildBinaries(ctx context.Context, dir string, profile bool) (binaries, error) {
	b := binaries{exporter: filepath.Join(dir, "cks-drift-exporter"), fake: filepath.Join(dir, "cks-drift-benchfake")}
	self, err := os.Executable()
	if err != nil {
		return b, err
	}
	b.self = self
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	exporter := []string{"build", "-trimpath", "-ldflags", "-s -w", "-o", b.exporter, "./cmd/cks-drift-exporter"}
	if profile {
		exporter = append(exporter[:1], append([]string{"-tags", "benchprofile"}, exporter[1:]...)...)
	}
	for _, build := range [][]string{
		exporter,
		{"build", "-o", b.fake, "./test/bench/benchfake"},
	} {
		cmd := exec.CommandContext(ctx, goBin, build...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return b, fmt.Errorf("go %s: %w", strings.Join(build, " "), err)
		}
	}
	return b, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// commandLine is how this run was started, for docs/benchmarks.md.
func commandLine() string {
	if c := os.Getenv("BENCH_COMMAND"); c != "" {
		return c
	}
	return "go run ./test/bench " + strings.Join(os.Args[1:], " ")
}
