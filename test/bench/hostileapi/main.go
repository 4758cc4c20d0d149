// Command hostileapi measures the exporter's peak memory against hostile Kubernetes API
// servers: N clusters of a simulated cloud, each with its own API server on loopback (TLS,
// kubetest) that answers every node list with about -size bytes of valid-looking NodeList JSON,
// streamed, and the real exporter binary checking them with check.node_source kubernetes_api at
// check.concurrency N (one server per cluster, none reused). It reports the exporter's peak RSS
// (VmHWM in /proc/PID/status) after its first cycle, its CPU time, the bytes it read and how the
// node sides ended, for each answer shape:
//
//   - clean: what a real API server answers, the cluster's three nodes (the baseline);
//   - one: a single answer of -size bytes (three nodes, the last with an image list that runs on);
//   - paged: four pages of -size/4 bytes, each a valid page under the exporter's page bound, with
//     a continue token to the next, so that every byte is read up to the list's bound;
//   - fat: the pages of paged, filled with nodes whose systemUUID and kubeletVersion are just under
//     the decoder's token bound (1 MiB), the fields the exporter keeps;
//   - alias, spaces, gzip, headers, goaway, pings, settings: the attacks of attacks.go (a
//     kubeconfig of YAML aliases, whitespace plain and under gzip, huge headers, HTTP/2 floods).
//
// The fakes run in this process, the exporter in its own, so that its RSS is its own.
//
//	go build -o cks-drift-exporter ./cmd/cks-drift-exporter
//	go run ./test/bench/hostileapi -exporter ./cks-drift-exporter -concurrency 16,64
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/procstat"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

func main() {
	var (
		bin     = flag.String("exporter", "./cks-drift-exporter", "the exporter binary (make build)")
		conc    = flag.String("concurrency", "16,64", "check.concurrency of each run, comma-separated; each run has as many clusters and API servers")
		shapes  = flag.String("shapes", "clean,one,paged,fat,alias,spaces,gzip,headers,goaway,pings,settings", "answer shapes and attacks, comma-separated (clean, one, paged, fat; alias, spaces, gzip, headers, goaway, pings, settings)")
		size    = flag.Int("size", 100<<20, "bytes of each API server's answer (of all its pages)")
		timeout = flag.Duration("timeout", 5*time.Minute, "kubernetes_api.timeout, long enough that the answers are read, not cut by the deadline")
		dir     = flag.String("dir", "", "folder for the configurations and logs (default: a new temporary one)")
	)
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "hostileapi-")
		if err != nil {
			fail(err)
		}
		*dir = d
	}
	fmt.Printf("hostile Kubernetes API servers, %d MiB of NodeList each; exporter %s; logs in %s\n", *size>>20, *bin, *dir)
	fmt.Printf("%-8s %-12s %12s %10s %14s %12s %s\n", "shape", "concurrency", "peak RSS", "CPU", "CPU/cluster", "read", "node sides")
	for _, c := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("concurrency %q", c))
		}
		for _, shape := range strings.Split(*shapes, ",") {
			r, err := measure(*bin, filepath.Join(*dir, fmt.Sprintf("%s-%d", shape, n)), shape, n, *size, *timeout)
			if err != nil {
				fail(fmt.Errorf("%s at %d: %w", shape, n, err))
			}
			fmt.Printf("%-8s %-12d %8.1f MiB %8.1f s %12.3f s %8.0f MiB %s\n", shape, n, float64(r.peakKiB)/1024, r.cpu, r.cpu/float64(n), float64(r.read)/(1<<20), r.sides)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostileapi:", err)
	os.Exit(1)
}

type result struct {
	peakKiB int64
	cpu     float64
	read    int64
	sides   string
}

// measure runs one exporter for one cycle against n clusters whose API servers answer in shape.
func measure(bin, dir, shape string, n, size int, timeout time.Duration) (result, error) {
	var r result
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		return r, err
	}
	defer sim.Close()
	for i := range n {
		c, err := sim.AddCluster(simulator.ClusterSpec{Name: fmt.Sprintf("tenant%02d", i)})
		if err != nil {
			return r, err
		}
		conf, stop, err := tenant(shape, size, nodeNames(c))
		if err != nil {
			return r, err
		}
		defer stop()
		sim.CloudStack.SetKubeconfig(c.ID, conf)
	}
	cfg, err := sim.WriteFiles(dir, fmt.Sprintf("  node_source: kubernetes_api\n  concurrency: %d\n  interval: 1h\nkubernetes_api:\n  timeout: %s\n", n, timeout),
		"  enabled: false\n")
	if err != nil {
		return r, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return r, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	logf, err := os.Create(filepath.Join(dir, "exporter.log"))
	if err != nil {
		return r, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--config.file="+cfg, "--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return r, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	if err := waitCycle(addr, done, timeout+2*time.Minute); err != nil {
		return r, fmt.Errorf("%w (log %s)", err, logf.Name())
	}
	pid := cmd.Process.Pid
	r.peakKiB, _ = world.Memory(pid)
	r.cpu = procstat.CPUSeconds(pid)
	r.read, _ = procstat.IOBytes(pid)
	r.sides, err = sides(addr)
	return r, err
}

// nodeNames are the Kubernetes node names of a simulated cluster: its VMs' names, lower case.
func nodeNames(c simulator.Cluster) []string {
	out := make([]string, 0, len(c.VMs))
	for _, vm := range c.VMs {
		out = append(out, strings.ToLower(vm))
	}
	return out
}

// waitCycle waits until /-/ready says the first cycle is done.
func waitCycle(addr string, exited <-chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("the exporter exited: %v", err)
		default:
		}
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("no cycle finished in time")
}

// sides sums up the node sides of the last cycle from /metrics: how many were read, and the
// failures by reason.
func sides(addr string) (string, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	read := 0
	var failures []string
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "cks_drift_kubectl_reachable{") && strings.HasSuffix(line, " 1"):
			read++
		case strings.HasPrefix(line, "cks_drift_kubectl_failures_total{"):
			reason := line[strings.Index(line, `reason="`)+8:]
			reason = reason[:strings.IndexByte(reason, '"')]
			if count := line[strings.LastIndexByte(line, ' ')+1:]; count != "0" {
				failures = append(failures, reason+" "+count)
			}
		}
	}
	out := fmt.Sprintf("%d read", read)
	for _, f := range failures {
		out += ", " + f
	}
	return out, s.Err()
}
