package sshdtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// createUser adds an unprivileged user for the test, with its home in the test's directory, and
// removes it when the test ends. Its password field is "*": no password works, but unlike a
// locked "!" account sshd lets it in with a key.
func (s *Server) createUser() {
	s.t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	s.user = "cksdt" + hex.EncodeToString(b)
	// The test's directory must be passable for the user, whose home lies inside it.
	for _, d := range []string{filepath.Dir(s.dir), s.dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			s.t.Fatal(err)
		}
	}
	out, err := exec.Command("useradd", "--no-create-home", "--home-dir", s.Home(), "--shell", "/bin/sh",
		"--password", "*", "--comment", "cks-drift-exporter test user", s.user).CombinedOutput()
	if err != nil {
		s.t.Fatalf("useradd %s: %v: %s", s.user, err, out)
	}
	u, err := user.Lookup(s.user)
	if err != nil {
		s.t.Fatal(err)
	}
	s.uid, _ = strconv.Atoi(u.Uid)
	s.t.Cleanup(func() {
		// Runs after Stop: sshd's processes for the user's connections end on their own once
		// their clients have gone; anything else the user still runs was left behind by a test.
		if left := awaitNone(s.uid, 10*time.Second); len(left) > 0 {
			s.t.Errorf("processes of %s still run: %s; killing them", s.user, describe(left))
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			awaitNone(s.uid, 10*time.Second)
		}
		// -f: exited processes that init has not reaped yet still count as the user's.
		if out, err := exec.Command("userdel", "-f", s.user).CombinedOutput(); err != nil {
			s.t.Errorf("userdel %s: %v: %s", s.user, err, out)
		}
	})
}

// writeFiles writes the host keys, the user's home with its authorized_keys, and bin/ with the
// kubectl and sudo stand-ins. sshd refuses host keys and authorized_keys that others can write
// or read, so the modes are those of a real node.
func (s *Server) writeFiles() {
	s.t.Helper()
	u, err := user.Lookup(s.user)
	if err != nil {
		s.t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	sshDir := filepath.Join(s.Home(), ".ssh")
	var keys strings.Builder
	for _, k := range s.opts.AuthorizedKeys {
		keys.Write(ssh.MarshalAuthorizedKey(k))
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
		dir  bool
		data string
		own  bool
	}{
		{path: s.Home(), mode: 0o755, dir: true, own: true},
		{path: sshDir, mode: 0o700, dir: true, own: true},
		{path: filepath.Join(sshDir, "authorized_keys"), mode: 0o600, data: keys.String(), own: true},
		{path: filepath.Join(s.dir, "bin"), mode: 0o755, dir: true},
		{path: filepath.Join(s.dir, "bin", "kubectl"), mode: 0o755, data: "#!/bin/sh\n" + s.kubectl()},
		// Real sudo would need a rule in /etc/sudoers.d, the machine's own configuration: the
		// stand-in runs the command as the user instead. Tests of sudo itself call /usr/bin/sudo.
		// A CKS node keeps kubectl in /opt/bin, this one on PATH: the stand-in runs that one for
		// /opt/bin/kubectl, so that the default command runs as written.
		{path: filepath.Join(s.dir, "bin", "sudo"), mode: 0o755, data: sudoStandIn},
	} {
		var err error
		if f.dir {
			err = os.MkdirAll(f.path, f.mode)
		} else {
			err = os.WriteFile(f.path, []byte(f.data), f.mode)
		}
		if err == nil {
			err = os.Chmod(f.path, f.mode)
		}
		if err == nil && f.own {
			err = os.Chown(f.path, uid, gid)
		}
		if err != nil {
			s.t.Fatal(err)
		}
	}
	for rel, data := range s.opts.Home {
		path := filepath.Join(s.Home(), filepath.Clean("/"+rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			s.t.Fatal(err)
		}
		for d := filepath.Dir(path); d != s.Home(); d = filepath.Dir(d) {
			if err := os.Chown(d, uid, gid); err != nil {
				s.t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Chown(path, uid, gid); err != nil {
			s.t.Fatal(err)
		}
	}
	for i, k := range s.keys {
		if err := os.WriteFile(filepath.Join(s.dir, fmt.Sprintf("host_key_%d", i)), k.PEM, 0o600); err != nil {
			s.t.Fatal(err)
		}
	}
}

// sudoStandIn runs its command as the user, /opt/bin/kubectl being the kubectl on PATH.
const sudoStandIn = `#!/bin/sh
if [ "$1" = /opt/bin/kubectl ]; then shift; exec kubectl "$@"; fi
exec "$@"
`

func (s *Server) kubectl() string {
	if s.opts.Kubectl == "" {
		return KubectlNodes(Nodes...)
	}
	return s.opts.Kubectl
}

// writeConfig writes sshd_config: only public keys, only the test user, no PAM (nothing of the
// machine's login stack runs), the stand-ins first on PATH.
func (s *Server) writeConfig() {
	s.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "ListenAddress %s\n", s.Addr())
	for i := range s.keys {
		fmt.Fprintf(&b, "HostKey %s\n", filepath.Join(s.dir, fmt.Sprintf("host_key_%d", i)))
	}
	fmt.Fprintf(&b, `PidFile none
UsePAM no
StrictModes yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile .ssh/authorized_keys
AllowUsers %s
SetEnv PATH=%s:/usr/bin:/bin
PrintMotd no
LogLevel VERBOSE
`, s.user, filepath.Join(s.dir, "bin"))
	b.WriteString(s.opts.Config)
	if err := os.WriteFile(filepath.Join(s.dir, "sshd_config"), []byte(b.String()), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// PIDs returns the pids the KubectlHang stand-in recorded.
func (s *Server) PIDs() []int {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.Home(), "kubectl.pids"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			s.t.Fatalf("kubectl.pids: %v", err)
		}
		pids = append(pids, pid)
	}
	return pids
}
