package exporter

// The real binary, built and run as a child process.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
)

// buildBinary builds the real binary, as make build does, into the test's folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cks-drift-exporter")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/cks-drift-exporter/cks-drift-exporter/cmd/cks-drift-exporter")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// process is the binary running as a child process.
type process struct {
	cmd  *exec.Cmd
	out  *logtest.Buffer
	done chan struct{}
}

func startProcess(t *testing.T, bin, cfg string) *process {
	t.Helper()
	p := &process{out: &logtest.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, "--config.file="+cfg, "--web.listen-address=127.0.0.1:0", "--log.level=debug")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill() // only our own child, by its pid
			<-p.done
		}
	})
	return p
}

// terminate sends SIGTERM and waits, bounded, for the process to exit; it returns the exit code.
func (p *process) terminate(t *testing.T) int {
	t.Helper()
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after SIGTERM; output:\n%s", p.out.String())
	}
	t.Logf("exited %v after SIGTERM with code %d", time.Since(sent).Round(time.Millisecond), p.cmd.ProcessState.ExitCode())
	if strings.Contains(p.out.String(), "panic:") {
		t.Fatalf("the exporter panicked:\n%s", p.out.String())
	}
	return p.cmd.ProcessState.ExitCode()
}
