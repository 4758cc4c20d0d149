// Package kube lists a cluster's Kubernetes nodes by running kubectl over SSH on its control node.
package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// Defaults for Options left zero.
const (
	// DefaultUser is the user CKS creates on its nodes (very old clusters use "core").
	DefaultUser = "cloud"
	// DefaultCommand asks kubectl for node names only, the smallest output that still names
	// every node.
	DefaultCommand = "sudo /opt/bin/kubectl get nodes -o name"
	// DefaultTimeout bounds one cluster's dial, handshake and command together.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutput is far above any real node list and far below what could hurt memory.
	DefaultMaxOutput = 4 << 20
)

// Options configures a Lister.
type Options struct {
	// User to log in as; empty means DefaultUser.
	User string
	// Signer is the private key: the management server's id_rsa or the cluster's keypair.
	Signer ssh.Signer
	// Policy verifies host keys; empty means Strict.
	Policy HostKeyPolicy
	// KnownHostsFile is read once by NewLister; required by Strict.
	KnownHostsFile string
	// Pins remembers host keys; required by Pin.
	Pins PinStore
	// Timeout bounds dial, handshake and command together; zero means DefaultTimeout.
	Timeout time.Duration
	// Command runs kubectl. It is fixed configuration and never built from cluster data, so
	// nothing CloudStack users control reaches a root shell; empty means DefaultCommand.
	Command string
	// MaxOutput caps kubectl's stdout in bytes; zero means DefaultMaxOutput.
	MaxOutput int64
	// Logger receives first-contact pins and debug lines; nil discards them.
	Logger *slog.Logger
}

// Lister runs kubectl on control nodes. It is safe for concurrent use, one call per cluster.
type Lister struct {
	user       string
	signer     ssh.Signer
	policy     HostKeyPolicy
	knownHosts ssh.HostKeyCallback
	pins       PinStore
	pinMu      sync.Mutex
	timeout    time.Duration
	command    string
	maxOutput  int64
	log        *slog.Logger
}

// NewLister validates o and fills defaults, so that a misconfigured host key policy fails at
// start-up instead of at the first scrape.
func NewLister(o Options) (*Lister, error) {
	l := &Lister{
		user:      o.User,
		signer:    o.Signer,
		policy:    o.Policy,
		pins:      o.Pins,
		timeout:   o.Timeout,
		command:   strings.TrimSpace(o.Command),
		maxOutput: o.MaxOutput,
		log:       o.Logger,
	}
	if l.signer == nil {
		return nil, errors.New("no ssh private key")
	}
	if l.user == "" {
		l.user = DefaultUser
	}
	if l.command == "" {
		l.command = DefaultCommand
	}
	if l.timeout < 0 {
		return nil, fmt.Errorf("negative ssh timeout %s", l.timeout)
	}
	if l.timeout == 0 {
		l.timeout = DefaultTimeout
	}
	if l.maxOutput < 0 {
		return nil, fmt.Errorf("negative kubectl output cap %d", l.maxOutput)
	}
	if l.maxOutput == 0 {
		l.maxOutput = DefaultMaxOutput
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.policy == "" {
		l.policy = Strict
	}
	switch l.policy {
	case Strict:
		if o.KnownHostsFile == "" {
			return nil, errors.New("host key policy strict needs a known_hosts file")
		}
		cb, err := knownhosts.New(o.KnownHostsFile)
		if err != nil {
			return nil, fmt.Errorf("read known_hosts: %w", err)
		}
		l.knownHosts = cb
	case Pin:
		if l.pins == nil {
			return nil, errors.New("host key policy pin needs a pin store")
		}
	case Insecure:
		l.log.Warn("ssh host keys of control nodes are not verified",
			"host_key_policy", string(Insecure))
	default:
		return nil, fmt.Errorf("unknown host key policy %q", l.policy)
	}
	return l, nil
}

// Nodes returns the names of c's Kubernetes nodes as kubectl on its control node prints them.
// It never returns a partial or empty list: any doubt is an error, whose Reason labels it, so
// that the drift check skips the node side instead of reporting every VM as "not a node".
func (l *Lister) Nodes(ctx context.Context, c collector.Cluster) ([]string, error) {
	if c.SSH.Host == "" || c.SSH.Port <= 0 || c.SSH.Port > 65535 {
		return nil, withReason(reasonNoTarget, errors.New("no ssh target for the control node"))
	}
	addr := net.JoinHostPort(c.SSH.Host, strconv.Itoa(c.SSH.Port))
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()

	start := time.Now()
	user := l.user
	if c.SSH.User != "" { // the cluster's own login user, as CKS recorded it
		user = c.SSH.User
	}
	out, err := l.run(ctx, c.ID, addr, user)
	if err != nil {
		return nil, fmt.Errorf("kubectl via %s: %w", addr, err)
	}
	nodes, err := ParseNodes(out)
	if err != nil {
		return nil, fmt.Errorf("kubectl via %s: %w", addr, err)
	}
	l.log.Debug("listed kubernetes nodes", "cluster_id", c.ID, "addr", addr,
		"nodes", len(nodes), "duration", time.Since(start))
	return nodes, nil
}
