// Package sshdtest runs Debian's OpenSSH sshd on loopback as a CKS control node for tests, with
// host keys generated per test, a user created for the test and a kubectl stand-in on its PATH.
package sshdtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/ports"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// Path is where Debian's openssh-server installs sshd.
const Path = "/usr/sbin/sshd"

// hint says how to get what the tests need.
const hint = "apt-get install openssh-server sudo (.ci/run does), and run the tests as root"

// Options configures a Server.
type Options struct {
	// HostKeys are the node's host keys; nil generates RSA, ECDSA and ed25519 keys, the three
	// that Debian's sshd has.
	HostKeys []HostKey
	// AuthorizedKeys may log in as the test user.
	AuthorizedKeys []ssh.PublicKey
	// Kubectl is the kubectl stand-in, a /bin/sh script; empty prints Nodes.
	Kubectl string
	// Config holds more sshd_config lines (ForceCommand, PubkeyAcceptedAlgorithms, MaxStartups).
	Config string
	// Home holds files written into the user's home, by path relative to it (".kube/config"
	// for a real kubectl), owned by the user with mode 0600 in directories of mode 0700.
	Home map[string][]byte
}

// Nodes are the node names the default kubectl stand-in prints.
var Nodes = []string{"real-control-18f3a2b4c5d", "real-node-18f3a2b4c6e"}

// KubectlNodes is a kubectl stand-in that prints these nodes as "kubectl get nodes -o name"
// does, with a line of noise on stderr as real kubectl sometimes writes.
func KubectlNodes(names ...string) string {
	var b strings.Builder
	b.WriteString("echo 'W1201 12:00:00.000000 1 warnings.go:70] noise on stderr' >&2\n")
	for _, n := range names {
		b.WriteString("echo node/" + n + "\n")
	}
	return b.String()
}

// KubectlExec is a kubectl stand-in that runs the real kubectl at path (make kube-tools builds
// one), which reads ~/.kube/config (Options.Home) and keeps its discovery cache in ~/.kube/cache,
// as on a control node.
func KubectlExec(path string) string {
	return "exec '" + strings.ReplaceAll(path, "'", `'\''`) + "' \"$@\"\n"
}

// KubectlHang is a kubectl stand-in that never answers: it records its pid in the PIDFile and
// becomes a sleep of an hour, as kubectl waiting for a dead API server does.
const KubectlHang = "echo $$ >> \"$HOME/kubectl.pids\"\nexec sleep 3600\n"

// Server is one sshd process and the user it lets in.
type Server struct {
	t    testing.TB
	dir  string
	user string
	uid  int
	port int
	opts Options
	keys []HostKey

	mu  sync.Mutex
	cmd *exec.Cmd
	log *bytes.Buffer
}

// Start runs sshd for t, stopping it and removing the user when t ends. Without sshd, useradd or
// root it skips t, or fails it when CI is set.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	tooltest.Require(t, Path, hint)
	tooltest.Require(t, "useradd", hint)
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "sshd tests need root (sshd, a user of their own)", hint)
	}
	// sshd's privilege separation directory; Debian's service creates it at start.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		tooltest.Unavailable(t, "cannot create /run/sshd", err.Error())
	}
	s := &Server{t: t, dir: t.TempDir(), opts: o}
	s.keys = o.HostKeys
	if s.keys == nil {
		for _, kind := range []string{sshtest.RSA, sshtest.ECDSA, sshtest.ED25519} {
			s.keys = append(s.keys, NewHostKey(t, kind))
		}
	}
	s.createUser()
	s.writeFiles()
	s.start()
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop sshd: %v", err)
		}
	})
	return s
}

// Host and Port are where sshd listens.
func (s *Server) Host() string { return "127.0.0.1" }

// Port is sshd's port on Host.
func (s *Server) Port() int { return s.port }

// Addr is Host:Port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.port)) }

// User is the user created for the test.
func (s *Server) User() string { return s.user }

// UID is the test user's uid.
func (s *Server) UID() int { return s.uid }

// Home is the test user's home directory.
func (s *Server) Home() string { return filepath.Join(s.dir, "home") }

// HostKeys returns the host keys sshd runs with.
func (s *Server) HostKeys() []ssh.PublicKey {
	var out []ssh.PublicKey
	for _, k := range s.keys {
		out = append(out, k.Signer.PublicKey())
	}
	return out
}

// Keys returns the host keys with their private halves, to keep some of them on a Restart.
func (s *Server) Keys() []HostKey { return append([]HostKey(nil), s.keys...) }

// Log returns what sshd logged so far (LogLevel VERBOSE).
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// Restart stops sshd and starts it again on the same port with the host keys and settings
// change leaves in the options, as re-installing or reconfiguring a node does.
func (s *Server) Restart(change func(o *Options)) {
	s.t.Helper()
	if err := s.Stop(); err != nil {
		s.t.Fatal(err)
	}
	change(&s.opts)
	if s.opts.HostKeys != nil {
		s.keys = s.opts.HostKeys
	}
	s.writeFiles()
	s.start()
}

// Stop ends sshd by its pid and waits for it. Connections it already handed to their own
// processes end when their clients close them.
func (s *Server) Stop() error {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal sshd %d: %w", cmd.Process.Pid, err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // killed by the signal, as asked
	}
	return err
}

// start runs sshd on a free loopback port. sshd cannot listen on port 0, so a port is taken
// from the kernel and handed over; another process can take it in between, and then the next
// port is tried.
func (s *Server) start() {
	s.t.Helper()
	var last string
	for range 5 {
		if s.port == 0 {
			s.port = freePort(s.t)
		}
		s.writeConfig()
		ok, log := s.run()
		if ok {
			return
		}
		last = log
		s.port = 0
	}
	s.t.Fatalf("sshd did not start:\n%s", last)
}

// run starts sshd and waits until it listens or exits, reporting which.
func (s *Server) run() (bool, string) {
	cmd := exec.Command(Path, "-D", "-e", "-f", filepath.Join(s.dir, "sshd_config"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start sshd: %v", err)
	}
	log := &bytes.Buffer{}
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			s.mu.Lock()
			log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if !said && strings.HasPrefix(sc.Text(), "Server listening on ") {
				said = true
				listening <- true
			}
		}
		if !said {
			listening <- false
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	if <-listening {
		s.mu.Lock()
		s.cmd, s.log = cmd, log
		s.mu.Unlock()
		return true, ""
	}
	_ = cmd.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return false, log.String()
}

func freePort(t testing.TB) int {
	t.Helper()
	port, err := ports.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// HostKey is a host key with its private half in OpenSSH's format, as sshd reads it.
type HostKey struct {
	Signer ssh.Signer
	PEM    []byte
}

// NewHostKey generates a host key of a type sshtest.GenerateKey knows.
func NewHostKey(t testing.TB, kind string) HostKey {
	t.Helper()
	s, pem, err := sshtest.GenerateKey(kind)
	if err != nil {
		t.Fatal(err)
	}
	return HostKey{Signer: s, PEM: pem}
}

// AwaitExit waits until the process pid has exited, at most timeout, without polling: a pidfd
// becomes readable when its process ends, whoever its parent is.
func AwaitExit(pid int, timeout time.Duration) error {
	return awaitExit(pid, timeout)
}
