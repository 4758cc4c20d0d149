package sshtest

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func newTestServer(t *testing.T) (*Server, ssh.Signer) {
	t.Helper()
	client, pemKey, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ssh.ParsePrivateKey(pemKey); err != nil {
		t.Fatalf("NewKey PEM does not parse: %v", err)
	}
	s, err := NewServer(Options{AuthorizedKey: client.PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, client
}

func dial(t *testing.T, s *Server, signer ssh.Signer) *ssh.Client {
	t.Helper()
	c, err := ssh.Dial("tcp", s.Addr(), &ssh.ClientConfig{
		User:            DefaultUser,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(s.HostKey()),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func run(t *testing.T, c *ssh.Client, cmd string) (stdout, stderr string, err error) {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer sess.Close()
	var o, e bytes.Buffer
	sess.Stdout, sess.Stderr = &o, &e
	err = sess.Run(cmd)
	return o.String(), e.String(), err
}

func TestExec(t *testing.T) {
	s, signer := newTestServer(t)
	s.SetNodes("demo-control-1", "demo-node-2")
	c := dial(t, s, signer)

	out, _, err := run(t, c, DefaultCommand)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "demo-control-1   <none>\ndemo-node-2      <none>\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	s.SetVersions(map[string]string{"demo-control-1": "v1.28.4", "demo-node-2": "v1.27.9"})
	if out, _, _ := run(t, c, DefaultCommand); out != "demo-control-1   v1.28.4\ndemo-node-2      v1.27.9\n" {
		t.Errorf("with versions: stdout = %q, want aligned custom columns", out)
	}

	_, stderr, err := run(t, c, "rm -rf /")
	var exitErr *ssh.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitStatus() != 127 {
		t.Errorf("unexpected command: err = %v, want exit status 127", err)
	}
	if stderr == "" {
		t.Error("unexpected command printed nothing on stderr")
	}

	s.SetMode(FailCommand)
	_, _, err = run(t, c, DefaultCommand)
	if !errors.As(err, &exitErr) || exitErr.ExitStatus() != 1 {
		t.Errorf("FailCommand: err = %v, want exit status 1", err)
	}
	if got := s.Commands(); got != 3 {
		t.Errorf("Commands() = %d, want 3 (the unexpected command does not count)", got)
	}
	if got := s.Connections(); got != 1 {
		t.Errorf("Connections() = %d, want 1", got)
	}
	if got := s.Sessions(); got != 4 {
		t.Errorf("Sessions() = %d, want 4", got)
	}
}

func TestRejectsOtherKeyAndUser(t *testing.T) {
	s, signer := newTestServer(t)
	other, _, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]*ssh.ClientConfig{
		"other key":  {User: DefaultUser, Auth: []ssh.AuthMethod{ssh.PublicKeys(other)}},
		"other user": {User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}},
		"password":   {User: DefaultUser, Auth: []ssh.AuthMethod{ssh.Password("cloud")}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.HostKeyCallback = ssh.FixedHostKey(s.HostKey())
			c, err := ssh.Dial("tcp", s.Addr(), cfg)
			if err == nil {
				_ = c.Close()
				t.Fatal("dial succeeded, want an authentication failure")
			}
		})
	}
	if got := s.Commands(); got != 0 {
		t.Errorf("Commands() = %d, want 0", got)
	}
}

func TestSetHostKey(t *testing.T) {
	s, _ := newTestServer(t)
	newKey, _, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	old := s.HostKey()
	s.SetHostKey(newKey)
	if bytes.Equal(old.Marshal(), s.HostKey().Marshal()) {
		t.Error("HostKey() unchanged after SetHostKey")
	}
	if !bytes.Equal(newKey.PublicKey().Marshal(), s.HostKey().Marshal()) {
		t.Error("HostKey() is not the key given to SetHostKey")
	}
}

// TestCloseEndsHangingConnections fails by deadlock (the test binary's timeout) if Close waits
// for a connection that never ends on its own.
func TestCloseEndsHangingConnections(t *testing.T) {
	s, signer := newTestServer(t)
	s.SetMode(HangCommand)
	c := dial(t, s, signer)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Run(DefaultCommand) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitCommands(ctx, 1); err != nil {
		t.Fatal(err)
	}

	s.SetMode(HangHandshake)
	raw, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Write([]byte("SSH-2.0-test\r\n")); err != nil {
		t.Fatal(err)
	}

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; err == nil {
		t.Error("hanging command returned no error after Close")
	}
	if _, err := raw.Read(make([]byte, 1)); err == nil {
		t.Error("hanging handshake connection still open after Close")
	}
}
