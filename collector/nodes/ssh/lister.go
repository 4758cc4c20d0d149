// Package kube lists a cluster's Kubernetes nodes by running kubectl over SSH on its control node.
package ssh

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

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// maxOutput bounds kubectl's stdout: far above any real node list and far below what could
// hurt memory.
const maxOutput = 4 << 20

// Options configures a Lister with values the configuration has already validated and
// completed; the Lister applies no defaults of its own and refuses zero values.
type Options struct {
	// User to log in as.
	User string
	// Signer is the private key: the management server's id_rsa or the cluster's keypair.
	Signer gossh.Signer
	// Policy verifies host keys.
	Policy config.HostKeyPolicy
	// KnownHostsFile is read once by NewLister; required by strict.
	KnownHostsFile string
	// Pins remembers host keys; required by pin.
	Pins PinStore
	// Timeout bounds dial, handshake and command together.
	Timeout time.Duration
	// Command runs kubectl. It is fixed configuration and never built from cluster data, so
	// nothing CloudStack users control reaches a root shell.
	Command string
	// MaxNodes is the most node lines a node list may have.
	MaxNodes int
	// Metrics counts handshake retries; nil counts into a private set nobody reads.
	Metrics *Metrics
	// Jitter returns the wait before a handshake is retried; nil means a random part of Timeout
	// (see retryJitter). Tests inject it so that no test depends on chance.
	Jitter func() time.Duration
	// Logger receives first-contact pins and debug lines; nil discards them.
	Logger *slog.Logger
}

// Lister runs kubectl on control nodes. It is safe for concurrent use, one call per cluster.
type Lister struct {
	user       string
	auth       []gossh.AuthMethod
	keyName    string
	policy     config.HostKeyPolicy
	knownHosts gossh.HostKeyCallback
	pins       PinStore
	pinMu      sync.Mutex        // guards pinning and a pin's read-then-reserve
	pinning    map[string][]byte // keys being written to pins, by pin id
	timeout    time.Duration
	command    string
	maxNodes   int
	metrics    *Metrics
	jitter     func() time.Duration
	log        *slog.Logger
}

// NewLister checks o, so that a misconfigured host key policy fails at start-up instead of at
// the first scrape, and reads the known_hosts file of the strict policy.
func NewLister(o Options) (*Lister, error) {
	l := &Lister{
		user:     o.User,
		policy:   o.Policy,
		pins:     o.Pins,
		timeout:  o.Timeout,
		command:  strings.TrimSpace(o.Command),
		maxNodes: o.MaxNodes,
		metrics:  o.Metrics,
		jitter:   o.Jitter,
		log:      o.Logger,
	}
	switch {
	case o.Signer == nil:
		return nil, errors.New("no ssh private key")
	case l.user == "":
		return nil, errors.New("no ssh user")
	case l.command == "":
		return nil, errors.New("no kubectl command")
	case l.timeout <= 0:
		return nil, fmt.Errorf("ssh timeout %s is not positive", l.timeout)
	case l.maxNodes <= 0:
		return nil, fmt.Errorf("node limit %d is not positive", l.maxNodes)
	}
	l.auth = []gossh.AuthMethod{gossh.PublicKeys(userSigners(o.Signer)...)}
	l.keyName = describeKey(o.Signer.PublicKey())
	if l.metrics == nil {
		l.metrics = NewMetrics()
	}
	if l.jitter == nil {
		l.jitter = func() time.Duration { return retryJitter(l.timeout) }
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	switch l.policy {
	case config.HostKeyStrict:
		if o.KnownHostsFile == "" {
			return nil, errors.New("host key policy strict needs a known_hosts file")
		}
		cb, err := knownhosts.New(o.KnownHostsFile)
		if err != nil {
			return nil, fmt.Errorf("read known_hosts: %w", err)
		}
		l.knownHosts = cb
	case config.HostKeyPin:
		if l.pins == nil {
			return nil, errors.New("host key policy pin needs a pin store")
		}
	case config.HostKeyInsecure:
		l.log.Warn("ssh host keys of control nodes are not verified",
			"host_key_policy", string(config.HostKeyInsecure))
	default:
		return nil, fmt.Errorf("unknown host key policy %q", l.policy)
	}
	return l, nil
}

// Nodes returns the names of c's Kubernetes nodes as kubectl on its control node prints them
// (ListNodes without the versions).
func (l *Lister) Nodes(ctx context.Context, c collector.Cluster) ([]string, error) {
	nodes, err := l.ListNodes(ctx, c)
	if err != nil {
		return nil, err
	}
	return collector.NodeNames(nodes), nil
}

// ListNodes returns c's Kubernetes nodes, with their kubelet versions where the command prints
// them, as kubectl on its control node lists them. It never returns a partial or empty list: any
// doubt is an error, whose Reason labels it, so that the drift check skips the node side instead
// of reporting every VM as "not a node".
func (l *Lister) ListNodes(ctx context.Context, c collector.Cluster) ([]collector.Node, error) {
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
	nodes, err := ParseNodes(out, l.maxNodes)
	if err != nil {
		return nil, fmt.Errorf("kubectl via %s: %w", addr, err)
	}
	l.log.Debug("listed kubernetes nodes", "cluster_id", c.ID, "addr", addr,
		"nodes", len(nodes), "duration", time.Since(start))
	return nodes, nil
}
