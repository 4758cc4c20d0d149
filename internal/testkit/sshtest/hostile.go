package sshtest

import (
	"errors"
	"net"
	"time"

	"golang.org/x/crypto/ssh"
)

// What a hostile control node does in the modes of a tenant who is root on it. Each runs until
// the client gives up or the server is closed, and counts what it got out, so that a test can
// tell that the client stopped it and not a timeout.

// banner writes lines before the SSH version line without end, as RFC 4253 lets a server send
// some: a client must bound them.
func (s *Server) banner(conn net.Conn) {
	line := []byte("Welcome to a control node that never gets to the point\r\n")
	for {
		if _, err := conn.Write(line); err != nil {
			return
		}
		s.mu.Lock()
		s.hostileBytes += int64(len(line))
		s.mu.Unlock()
	}
}

// openChannels opens n channels of the kinds a server may open towards a client (forwarded
// ports, X11, agent, a session), counting those the client accepts.
func (s *Server) openChannels(sc ssh.Conn, n int) {
	kinds := []string{"forwarded-tcpip", "x11", "auth-agent@openssh.com", "session", "direct-tcpip"}
	for i := range n {
		ch, reqs, err := sc.OpenChannel(kinds[i%len(kinds)], nil)
		s.mu.Lock()
		if err == nil {
			s.acceptedChannels++
		} else {
			s.rejectedChannels++
		}
		s.mu.Unlock()
		if err == nil {
			go ssh.DiscardRequests(reqs)
			_ = ch.Close()
		}
	}
}

// floodStderr writes to stderr without end.
func (s *Server) floodStderr(ch ssh.Channel) {
	chunk := make([]byte, 32<<10)
	for i := range chunk {
		chunk[i] = 'E'
	}
	for {
		n, err := ch.Stderr().Write(chunk)
		s.mu.Lock()
		s.hostileBytes += int64(n)
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// drip writes a valid node list one byte every 10 ms, and never ends it.
func (s *Server) drip(ch ssh.Channel) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for line := []byte("node/drip-control-1\n"); ; {
		for _, b := range line {
			select {
			case <-t.C:
			case <-s.done:
				return
			}
			if _, err := ch.Write([]byte{b}); err != nil {
				return
			}
			s.mu.Lock()
			s.hostileBytes++
			s.mu.Unlock()
		}
	}
}

// endlessNodes prints node lines without end, as fast as the connection takes them: with
// RekeyFlood, each 256 bytes of them wait for a new key exchange.
func (s *Server) endlessNodes(ch ssh.Channel) {
	line := []byte("node/rekey-control-1\n")
	for {
		select {
		case <-s.done:
			return
		default:
		}
		if _, err := ch.Write(line); err != nil {
			return
		}
		s.mu.Lock()
		s.hostileBytes += int64(len(line))
		s.mu.Unlock()
	}
}

// HostileBytes returns how many bytes the hostile modes (EndlessBanner, FloodStderr, Drip,
// RekeyFlood) wrote in all.
func (s *Server) HostileBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostileBytes
}

// Channels returns how many channels the server opened towards clients that they accepted and
// rejected (OpenChannels).
func (s *Server) Channels() (accepted, rejected int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acceptedChannels, s.rejectedChannels
}

// KeyboardInteractive returns how many keyboard-interactive logins were tried
// (KeyboardInteractiveOnly): a client that answers a node's prompts could be asked anything.
func (s *Server) KeyboardInteractive() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyboardInteractive
}

// keyboardInteractiveConfig offers keyboard-interactive authentication only, asking for a
// password and whatever else, and counting the clients that answer.
func (s *Server) keyboardInteractiveConfig() *ssh.ServerConfig {
	cfg := &ssh.ServerConfig{
		KeyboardInteractiveCallback: func(_ ssh.ConnMetadata, challenge ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			s.mu.Lock()
			s.keyboardInteractive++
			s.mu.Unlock()
			_, _ = challenge("", "", []string{"Password: ", "Private key: "}, []bool{false, false})
			return nil, errors.New("sshtest: no")
		},
	}
	s.mu.Lock()
	for _, k := range s.hostKeys {
		cfg.AddHostKey(k)
	}
	s.mu.Unlock()
	return cfg
}
