package ssh

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

func TestNodes(t *testing.T) {
	f := newFixture(t)
	l := f.lister(t, nil)
	got, err := f.nodes(t, l)
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	want := []string{"demo-control-18f3a2b4c5d", "demo-node-18f3a2b4c6e"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Nodes() mismatch (-want +got):\n%s", diff)
	}
	if n := f.srv.Commands(); n != 1 {
		t.Errorf("server ran %d commands, want 1", n)
	}
}

func TestNodesFailures(t *testing.T) {
	tests := []struct {
		mode     sshtest.Mode
		timeout  time.Duration
		reasons  []string
		commands int
		text     string // part of the error message, when it matters
	}{
		{mode: sshtest.Refuse, reasons: []string{"dial", "handshake"}},
		{mode: sshtest.HangHandshake, timeout: 300 * time.Millisecond, reasons: []string{"timeout"}},
		{mode: sshtest.FailCommand, reasons: []string{"exit_status"}, commands: 1,
			text: "status 1: The connection to the server 127.0.0.1:6443 was refused"},
		{mode: sshtest.Garbage, reasons: []string{"bad_output"}, commands: 1},
		{mode: sshtest.Huge, reasons: []string{"output_too_large"}, commands: 1},
		{mode: sshtest.HangCommand, timeout: 300 * time.Millisecond, reasons: []string{"timeout"}, commands: 1},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetMode(tt.mode)
			l := f.lister(t, func(o *Options) {
				if tt.timeout > 0 {
					o.Timeout = tt.timeout
				}
			})
			nodes, err := f.nodes(t, l)
			wantReason(t, nodes, err, tt.reasons...)
			if tt.text != "" && (err == nil || !strings.Contains(err.Error(), tt.text)) {
				t.Errorf("error %v does not contain %q", err, tt.text)
			}
			if n := f.srv.Commands(); n != tt.commands {
				t.Errorf("server ran %d commands, want %d", n, tt.commands)
			}
		})
	}
}

// TestNodesUnexpectedCommand: a command the node does not have fails with its exit status; the
// table that kubectl get nodes prints without -o is not a node list.
func TestNodesUnexpectedCommand(t *testing.T) {
	f := newFixture(t)
	l := f.lister(t, func(o *Options) { o.Command = "/usr/local/bin/kubectl get nodes -o name" })
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "exit_status")
	if err != nil && !strings.Contains(err.Error(), "status 127") {
		t.Errorf("error %v does not mention status 127", err)
	}
	nodes, err = f.nodes(t, f.lister(t, func(o *Options) { o.Command = "kubectl get nodes" }))
	wantReason(t, nodes, err, "bad_output")
}

func TestNodesWrongKey(t *testing.T) {
	f := newFixture(t)
	other, _, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	l := f.lister(t, func(o *Options) { o.Signer = other })
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "auth")
	if n := f.srv.Commands(); n != 0 {
		t.Errorf("server ran %d commands, want 0", n)
	}
}

func TestNodesWrongUser(t *testing.T) {
	f := newFixture(t)
	l := f.lister(t, func(o *Options) { o.User = "core" })
	nodes, err := f.nodes(t, l)
	wantReason(t, nodes, err, "auth")
}

func TestNodesNoTarget(t *testing.T) {
	f := newFixture(t)
	l := f.lister(t, nil)
	for name, target := range map[string]collector.SSHTarget{
		"empty":    {},
		"no host":  {Port: 2222},
		"no port":  {Host: "127.0.0.1"},
		"bad port": {Host: "127.0.0.1", Port: 70000},
	} {
		t.Run(name, func(t *testing.T) {
			c := f.cluster
			c.SSH = target
			nodes, err := l.Nodes(t.Context(), c)
			wantReason(t, nodes, err, "no_target")
		})
	}
	if n := f.srv.Connections(); n != 0 {
		t.Errorf("server saw %d connections, want 0", n)
	}
}

func TestNodesDialFailure(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	f.cluster.SSH = collector.SSHTarget{Host: "127.0.0.1", Port: closed.Port}
	nodes, err := f.nodes(t, f.lister(t, nil))
	wantReason(t, nodes, err, "dial")
}

func TestNodesContextCancelled(t *testing.T) {
	t.Run("before the call", func(t *testing.T) {
		f := newFixture(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		nodes, err := f.lister(t, nil).Nodes(ctx, f.cluster)
		wantReason(t, nodes, err, "other")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v is not context.Canceled", err)
		}
	})
	t.Run("while the command hangs", func(t *testing.T) {
		f := newFixture(t)
		f.srv.SetMode(sshtest.HangCommand)
		// A long Timeout: if cancellation did not stop the call, it would end with a timeout.
		l := f.lister(t, func(o *Options) { o.Timeout = time.Minute })
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			if err := f.srv.WaitCommands(waitCtx(t), 1); err == nil {
				cancel()
			}
		}()
		nodes, err := l.Nodes(ctx, f.cluster)
		wantReason(t, nodes, err, "other")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v is not context.Canceled", err)
		}
	})
}

func TestNewListerValidates(t *testing.T) {
	signer, _, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "known_hosts")
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no key", func(o *Options) { o.Signer = nil }, "no ssh private key"},
		{"no user", func(o *Options) { o.User = "" }, "no ssh user"},
		{"no command", func(o *Options) { o.Command = " " }, "no kubectl command"},
		{"no policy", func(o *Options) { o.Policy = "" }, `unknown host key policy ""`},
		{"strict without file", func(o *Options) { o.Policy = config.HostKeyStrict }, "needs a known_hosts file"},
		{"strict with missing file", func(o *Options) { o.Policy, o.KnownHostsFile = config.HostKeyStrict, missing }, "read known_hosts"},
		{"pin without store", func(o *Options) { o.Policy = config.HostKeyPin }, "needs a pin store"},
		{"unknown policy", func(o *Options) { o.Policy = "trusting" }, `unknown host key policy "trusting"`},
		{"no timeout", func(o *Options) { o.Timeout = 0 }, "ssh timeout 0s is not positive"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "ssh timeout -1s is not positive"},
		{"no node limit", func(o *Options) { o.MaxNodes = 0 }, "node limit 0 is not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := validOptions(signer)
			tt.change(&o)
			l, err := NewLister(o)
			if err == nil {
				t.Fatalf("NewLister() = %v, want an error", l)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewLister() error %q does not contain %q", err, tt.want)
			}
		})
	}
}
