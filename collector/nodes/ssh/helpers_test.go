package ssh

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// fixture is one fake control node and a client key it accepts.
type fixture struct {
	srv     *sshtest.Server
	signer  gossh.Signer
	cluster collector.Cluster
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	signer, _, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sshtest.NewServer(sshtest.Options{AuthorizedKey: signer.PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	srv.SetNodes("demo-control-18f3a2b4c5d", "demo-node-18f3a2b4c6e")
	return &fixture{
		srv:    srv,
		signer: signer,
		cluster: collector.Cluster{
			ID:   "6f1d2c3b-0000-4000-8000-000000000001",
			Name: "demo",
			SSH:  collector.SSHTarget{Host: srv.Host(), Port: srv.Port()},
		},
	}
}

// lister builds a Lister for f with the insecure policy unless change says otherwise.
func (f *fixture) lister(t *testing.T, change func(*Options)) *Lister {
	t.Helper()
	o := validOptions(f.signer)
	if change != nil {
		change(&o)
	}
	l, err := NewLister(o)
	if err != nil {
		t.Fatalf("NewLister: %v", err)
	}
	return l
}

// validOptions are Options as the configuration's defaults give them, with the insecure policy
// and a retry that does not wait.
func validOptions(signer gossh.Signer) Options {
	return Options{
		User: sshtest.DefaultUser, Signer: signer, Policy: config.HostKeyInsecure, Timeout: 10 * time.Second,
		Command: sshtest.DefaultCommand, MaxNodes: 1000, Jitter: func() time.Duration { return 0 },
	}
}

// nodes calls Nodes with a context that ends with the test.
func (f *fixture) nodes(t *testing.T, l *Lister) ([]string, error) {
	t.Helper()
	return l.Nodes(t.Context(), f.cluster)
}

// wantReason checks that a call failed with reason and returned no list.
func wantReason(t *testing.T, nodes []string, err error, reasons ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Nodes() = %q, want an error with reason %v", nodes, reasons)
	}
	t.Logf("error: %v", err)
	if nodes != nil {
		t.Errorf("Nodes() returned %q with its error, want no list", nodes)
	}
	if r := Reason(err); !slices.Contains(reasons, r) {
		t.Errorf("Reason(%v) = %q, want one of %v", err, r, reasons)
	}
}

// logBuffer collects log output; the pin policy logs from the ssh package's goroutine, so it
// is logtest's locked buffer.
type logBuffer struct{ logtest.Buffer }

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// waitCtx bounds waits on the fake server so that a broken test fails instead of hanging.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
