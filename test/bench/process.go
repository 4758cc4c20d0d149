package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// The benchmark's child processes: the simulated cloud and the exporter, with their logs, and
// what /proc says of them.

// process is a child process with its log file.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

func start(name, logFile string, env []string, bin string, args ...string) (*process, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1), log: f}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// alive reports an error once the process has exited.
func (p *process) alive() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited: %v (log %s)", p.name, err, p.log.Name())
	default:
		return nil
	}
}

// stop ends the process with SIGTERM, then SIGKILL after 15 s; it may be called twice.
func (p *process) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	if p.alive() == nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-p.done:
			p.done <- err
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
	_ = p.log.Close()
}

func startFake(ctx context.Context, o options, bins binaries, dir string, n int) (*process, world.Info, error) {
	var info world.Info
	_ = os.Remove(filepath.Join(dir, "world.json"))
	_ = os.Remove(filepath.Join(dir, "state.db"))
	p, err := start("cks-drift-benchfake", filepath.Join(dir, "benchfake.log"), nil, bins.fake,
		"-clusters", strconv.Itoa(n), "-strays", strconv.Itoa(o.strays),
		"-latency", o.latency.String(), "-handshake", o.handshake.String(), "-hang", fmt.Sprint(o.hang), "-projects", fmt.Sprint(o.projects),
		"-drift", fmt.Sprint(o.drift), "-notifier-concurrency", strconv.Itoa(o.notifierConcurrency),
		"-concurrency", strconv.Itoa(o.concurrency), "-ssh-timeout", o.sshTimeout.String(), "-page-size", strconv.Itoa(o.pageSize),
		"-include-projects="+strconv.FormatBool(o.includeProjects), "-host-key-policy", o.hostKeyPolicy, "-out", dir)
	if err != nil {
		return nil, info, err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		raw, err := os.ReadFile(filepath.Join(dir, "world.json"))
		if err == nil {
			if err := json.Unmarshal(raw, &info); err != nil {
				p.stop()
				return nil, info, err
			}
			return p, info, nil
		}
		if err := p.alive(); err != nil {
			return nil, info, err
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, info, errors.New("the simulated cloud did not start within 3 minutes")
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			p.stop()
			return nil, info, err
		}
	}
}

func startExporter(bins binaries, dir, config string, env []string) (*process, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := l.Addr().String()
	_ = l.Close()
	p, err := start("cks-drift-exporter", filepath.Join(dir, "exporter.log"), env, bins.exporter,
		"--config.file="+config, "--web.listen-address="+addr, "--web.enable-lifecycle", "--log.level=info")
	return p, "http://" + addr, err
}

// waitReady polls /-/ready until the first cycle has finished.
func waitReady(ctx context.Context, base string, p *process, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := p.alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s", limit)
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}
