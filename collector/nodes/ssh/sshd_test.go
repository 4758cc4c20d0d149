package ssh

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// The tests in this file run against Debian's OpenSSH sshd (internal/testkit/sshdtest), which the fake
// control node cannot stand in for: its host key choice, its signature algorithms, MaxStartups,
// ForceCommand and how it signals commands.

// standInCommand runs the kubectl stand-in through the sudo stand-in, as the default command
// runs /opt/bin/kubectl through sudo.
const standInCommand = "sudo kubectl get nodes -o name"

// realNode is one sshd with a user that accepts key.
type realNode struct {
	srv     *sshdtest.Server
	key     gossh.Signer
	cluster collector.Cluster
}

func newRealNode(t *testing.T, keyType string, change func(*sshdtest.Options)) *realNode {
	t.Helper()
	key, _, err := sshtest.GenerateKey(keyType)
	if err != nil {
		t.Fatal(err)
	}
	o := sshdtest.Options{AuthorizedKeys: []gossh.PublicKey{key.PublicKey()}}
	if change != nil {
		change(&o)
	}
	srv := sshdtest.Start(t, o)
	return &realNode{srv: srv, key: key, cluster: collector.Cluster{
		ID: "7a1d2c3b-0000-4000-8000-000000000001", Name: "real",
		SSH: collector.SSHTarget{Host: srv.Host(), Port: srv.Port()},
	}}
}

// lister is a Lister for the node with the insecure policy unless change says otherwise.
func (n *realNode) lister(t *testing.T, change func(*Options)) *Lister {
	t.Helper()
	o := validOptions(n.key)
	o.User, o.Command = n.srv.User(), standInCommand
	if change != nil {
		change(&o)
	}
	l, err := NewLister(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (n *realNode) nodes(t *testing.T, l *Lister) ([]string, error) {
	t.Helper()
	nodes, err := l.Nodes(t.Context(), n.cluster)
	if err != nil {
		t.Logf("sshd log:\n%s", n.srv.Log())
	}
	return nodes, err
}

// TestRealSSHDUserKeys: ed25519, ECDSA and RSA user keys log in; the stand-in's stderr noise
// does not disturb the list.
func TestRealSSHDUserKeys(t *testing.T) {
	for _, kind := range []string{sshtest.ED25519, sshtest.ECDSA, sshtest.RSA} {
		t.Run(kind, func(t *testing.T) {
			n := newRealNode(t, kind, nil)
			got, err := n.nodes(t, n.lister(t, nil))
			if err != nil {
				t.Fatalf("Nodes: %v", err)
			}
			if diff := cmp.Diff(sshdtest.Nodes, got); diff != "" {
				t.Errorf("Nodes() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRealSSHDRSASHA512Only: a node that accepts only rsa-sha2-512 signatures still lets an RSA
// key in (the ssh package alone would offer rsa-sha2-256 only).
func TestRealSSHDRSASHA512Only(t *testing.T) {
	n := newRealNode(t, sshtest.RSA, func(o *sshdtest.Options) { o.Config = "PubkeyAcceptedAlgorithms rsa-sha2-512\n" })
	if _, err := n.nodes(t, n.lister(t, nil)); err != nil {
		t.Fatalf("Nodes: %v", err)
	}
}

// TestRealSSHDStrictPartialKnownHosts: Debian's three host keys, known_hosts with one of them:
// accepted, whichever it is.
func TestRealSSHDStrictPartialKnownHosts(t *testing.T) {
	n := newRealNode(t, sshtest.ED25519, nil)
	for _, k := range n.srv.HostKeys() {
		t.Run(k.Type(), func(t *testing.T) {
			file := writeKnownHosts(t, n.srv.Addr(), k)
			l := n.lister(t, func(o *Options) { o.Policy, o.KnownHostsFile = config.HostKeyStrict, file })
			if _, err := n.nodes(t, l); err != nil {
				t.Fatalf("Nodes with only the %s key known: %v", k.Type(), err)
			}
		})
	}
}

// TestRealSSHDForceCommand: a node whose sshd forces the command runs it whatever is asked.
func TestRealSSHDForceCommand(t *testing.T) {
	n := newRealNode(t, sshtest.ED25519, func(o *sshdtest.Options) { o.Config = "ForceCommand " + standInCommand + "\n" })
	got, err := n.nodes(t, n.lister(t, func(o *Options) { o.Command = "kubectl version" }))
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	if diff := cmp.Diff(sshdtest.Nodes, got); diff != "" {
		t.Errorf("Nodes() mismatch (-want +got):\n%s", diff)
	}
}
