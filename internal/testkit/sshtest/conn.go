package sshtest

import (
	"bytes"
	_ "embed"
	"errors"
	"io"
	"net"
	"time"

	"golang.org/x/crypto/ssh"
)

// failMessage is what kubectl prints when the API server on the control node is down, recorded
// from the real kubectl of make kube-tools without a discovery cache (TestRealKubectlTexts keeps
// it so): five klog lines, then its message.
//
//go:embed testdata/kubectl-refused.stderr
var failMessage string

// forbiddenMessage and timeoutMessage are real kubectl's stderr when RBAC refuses the node list
// and, without a discovery cache, when the API server never answers, recorded as failMessage is.
var (
	//go:embed testdata/kubectl-forbidden.stderr
	forbiddenMessage string
	//go:embed testdata/kubectl-frozen.stderr
	timeoutMessage string
)

// garbage is output a broken or unexpected kubectl could print: a table instead of names.
const garbage = "NAME              STATUS   ROLES           AGE   VERSION\n" +
	"demo-control-1   Ready    control-plane   12d   v1.30.2\n"

// serve plays one TCP connection according to the mode at accept time.
func (s *Server) serve(conn net.Conn) {
	defer s.wg.Done()
	defer s.untrack(conn)
	defer conn.Close()

	s.mu.Lock()
	mode := s.mode
	dropped := s.drop > 0
	if dropped {
		s.drop--
	}
	s.mu.Unlock()
	if dropped {
		return
	}
	switch mode {
	case Refuse:
		return
	case HangHandshake:
		// Read and drop the client's version line and whatever follows, never answering, until
		// the client hangs up or Close closes the connection.
		_, _ = io.Copy(io.Discard, conn)
		return
	case EndlessBanner:
		s.banner(conn)
		return
	}
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-s.done:
			t.Stop()
			return
		}
	}

	sc, chans, reqs, err := ssh.NewServerConn(conn, s.serverConfig(mode))
	if err != nil {
		s.log.Debug("sshtest handshake failed", "remote", conn.RemoteAddr().String(), "err", err)
		return
	}
	defer sc.Close()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ssh.DiscardRequests(reqs)
	}()
	if mode == OpenChannels {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.openChannels(sc, 50)
		}()
	}
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		s.mu.Lock()
		s.sessions++
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.session(ch, creqs)
		}()
	}
}

// serverConfig is built per connection so that SetHostKey applies to the next handshake. Only
// public-key authentication is offered, as on a CKS node, unless mode says otherwise.
func (s *Server) serverConfig(mode Mode) *ssh.ServerConfig {
	if mode == KeyboardInteractiveOnly {
		return s.keyboardInteractiveConfig()
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if meta.User() == s.user && bytes.Equal(key.Marshal(), s.authorized) {
				return &ssh.Permissions{}, nil
			}
			return nil, errors.New("sshtest: key not authorized")
		},
	}
	if mode == RekeyFlood {
		cfg.RekeyThreshold = 256 // the lowest the ssh package takes
	}
	s.mu.Lock()
	for _, k := range s.hostKeys {
		cfg.AddHostKey(k)
	}
	s.mu.Unlock()
	return cfg
}

// session serves one session channel: the first exec request runs, everything else is refused.
// A hanging command keeps the channel open until the client or Close ends it.
func (s *Server) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	started := false
	for req := range reqs {
		if req.Type == "signal" && started {
			// As sshd does: the signal goes to the command, which a hanging one dies of.
			var p struct{ Signal string }
			if ssh.Unmarshal(req.Payload, &p) == nil {
				s.mu.Lock()
				s.signals = append(s.signals, p.Signal)
				close(s.changed)
				s.changed = make(chan struct{})
				s.mu.Unlock()
				_, _ = ch.SendRequest("exit-signal", false, ssh.Marshal(struct {
					Signal     string
					CoreDumped bool
					Error      string
					Lang       string
				}{Signal: p.Signal}))
				return
			}
		}
		if req.Type != "exec" || started {
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
			continue
		}
		var p struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &p); err != nil {
			_ = req.Reply(false, nil)
			continue
		}
		_ = req.Reply(true, nil)
		started = true
		if s.exec(ch, p.Command) {
			return
		}
	}
}

// exec runs the fake command and reports whether it finished; false means it hangs.
func (s *Server) exec(ch ssh.Channel, command string) bool {
	call, refused := parseCommand(command)
	if refused != nil {
		_, _ = io.WriteString(ch, refused.stdout)
		_, _ = io.WriteString(ch.Stderr(), refused.stderr)
		exit(ch, refused.status)
		return true
	}
	s.mu.Lock()
	s.commands++
	close(s.changed)
	s.changed = make(chan struct{})
	mode := s.mode
	nodes := make([]node, len(s.nodes))
	for i, name := range s.nodes {
		nodes[i] = node{name: name, version: s.versions[name], index: i}
	}
	delay := s.slowCommand
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-s.done:
			return true
		}
	}

	switch mode {
	case FailCommand:
		_, _ = io.WriteString(ch.Stderr(), failMessage)
		exit(ch, 1)
	case Forbidden:
		_, _ = io.WriteString(ch.Stderr(), forbiddenMessage)
		exit(ch, 1)
	case APITimeout:
		_, _ = io.WriteString(ch.Stderr(), timeoutMessage)
		exit(ch, 1)
	case Garbage:
		_, _ = io.WriteString(ch, garbage)
		exit(ch, 0)
	case Huge:
		writeHuge(ch)
		exit(ch, 0)
	case HangCommand:
		return false
	case FloodStderr:
		s.floodStderr(ch)
		exit(ch, 0)
	case Drip:
		s.drip(ch)
		return false
	case RekeyFlood:
		s.endlessNodes(ch)
		return false
	default:
		ans := call.print(nodes)
		_, _ = io.WriteString(ch, ans.stdout)
		_, _ = io.WriteString(ch.Stderr(), ans.stderr)
		exit(ch, ans.status)
	}
	return true
}

// writeHuge prints valid node lines past HugeSize, stopping early when the client goes away,
// so that only the client's output cap can reject it.
func writeHuge(w io.Writer) {
	line := []byte("node/huge-cluster-node-0123456789abcdef\n")
	chunk := bytes.Repeat(line, 32<<10/len(line))
	for written := 0; written <= HugeSize; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// exit ends the command the way sshd does: EOF on stdout, then the exit status.
func exit(ch ssh.Channel, status uint32) {
	_ = ch.CloseWrite()
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}
