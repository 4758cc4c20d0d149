// Package kubeapi lists a cluster's Kubernetes nodes through its Kubernetes API, with a kubeconfig from a directory of per-cluster files or from CloudStack.
package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// ConfigSource returns the kubeconfig CloudStack keeps for a cluster (getKubernetesClusterConfig).
type ConfigSource interface {
	KubernetesClusterConfig(ctx context.Context, clusterID string) ([]byte, error)
}

// Options configures a Lister with validated values; New refuses zero ones instead of guessing.
type Options struct {
	// Timeout bounds one cluster: fetching its kubeconfig and every page of its node list.
	Timeout time.Duration
	// MaxNodes is the most nodes one cluster may list; more is reason too_many_nodes.
	MaxNodes int
	// KubeconfigDir holds "<cluster uuid>.conf" files; empty means none.
	KubeconfigDir string
	// Configs fetches a cluster's kubeconfig from CloudStack when KubeconfigDir has no file for
	// it; nil means files only.
	Configs ConfigSource
	// Logger receives debug lines; client-go's own log lines are dropped, since every failure
	// comes back as an error that the caller logs once.
	Logger *slog.Logger
	// Now is the clock that ages cached clients.
	Now func() time.Time
}

// Lister lists nodes through the Kubernetes API. It is safe for concurrent use, one call per
// cluster at a time.
type Lister struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	cache     map[string]*client // by cluster uuid
	lastSweep time.Time
}

// New checks o.
func New(o Options) (*Lister, error) {
	switch {
	case o.Timeout <= 0:
		return nil, fmt.Errorf("kubernetes API timeout %s is not positive", o.Timeout)
	case o.MaxNodes <= 0:
		return nil, fmt.Errorf("node limit %d is not positive", o.MaxNodes)
	case o.KubeconfigDir == "" && o.Configs == nil:
		return nil, errors.New("neither a kubeconfig directory nor CloudStack to ask for kubeconfigs")
	case o.Logger == nil || o.Now == nil:
		return nil, errors.New("kubernetes API lister needs a logger and a clock")
	}
	return &Lister{opts: o, log: o.Logger, cache: make(map[string]*client)}, nil
}

// Nodes returns the names of c's Kubernetes nodes as its API server lists them (ListNodes
// without the versions).
func (l *Lister) Nodes(ctx context.Context, c collector.Cluster) ([]string, error) {
	nodes, err := l.ListNodes(ctx, c)
	if err != nil {
		return nil, err
	}
	return collector.NodeNames(nodes), nil
}

// ListNodes returns c's Kubernetes nodes with their kubelet versions (status.nodeInfo
// .kubeletVersion) as its API server lists them. It never returns a partial or empty list: any
// doubt is an *Error whose Reason labels it, so that the check skips the node side instead of
// reporting every VM as "not a node".
func (l *Lister) ListNodes(ctx context.Context, c collector.Cluster) ([]collector.Node, error) {
	nodes, err := l.List(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]collector.Node, len(nodes))
	for i, n := range nodes {
		out[i] = collector.Node{Name: n.Name, KubeletVersion: n.KubeletVersion}
	}
	return out, nil
}

// List is ListNodes with each node's system UUID.
func (l *Lister) List(ctx context.Context, c collector.Cluster) (nodes []Node, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	ctx = klog.NewContext(ctx, logr.Discard())
	defer func() {
		// client-go is a large library fed by an answer from outside; whatever it does, the
		// cycle goes on. The panic value is left out: it could hold parts of the kubeconfig.
		if r := recover(); r != nil {
			nodes, err = nil, withReason(reasonOther, fmt.Errorf("listing the nodes panicked (%T)", r))
		}
	}()
	start := l.opts.Now()

	cl, err := l.client(ctx, c.ID, false)
	if err != nil {
		return nil, err
	}
	// The next list of this cluster is a cycle away, longer than any idle connection is kept:
	// closing it now bounds the open connections (and their buffers) by check.concurrency.
	defer func() { cl.closeIdle() }()
	cl.conns.reset()
	nodes, err = list(ctx, cl.nodes, l.opts.MaxNodes)
	if err != nil && cl.fromCloudStack && refetch(err) {
		// A rotated credential (401, 403) or an API server at a new address (unreachable): ask
		// CloudStack once more, and list again only if it now says something else.
		fresh, ferr := l.client(ctx, c.ID, true)
		switch {
		case ferr != nil && Reason(err) == reasonAuth:
			// The credential is refused and CloudStack has no usable one: that is what to fix.
			err = ferr
		case ferr == nil && fresh.sum != cl.sum:
			l.log.Debug("fetched the cluster's kubeconfig again", "cluster_id", c.ID, "reason", Reason(err))
			fresh.conns.reset()
			nodes, err = list(ctx, fresh.nodes, l.opts.MaxNodes)
			cl = fresh
		}
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes API %s: %w", cl.host, err)
	}
	l.log.Debug("listed kubernetes nodes", "cluster_id", c.ID, "api", cl.host,
		"kubeconfig", cl.origin(), "nodes", len(nodes), "duration", l.opts.Now().Sub(start),
		"system_uuid_is_vm_uuid", sameUUIDs(nodes, c.Mapped))
	return nodes, nil
}

// Server returns the API server address of the kubeconfig the cluster's last list used, for the
// log line that says where its nodes could not be listed; "" when it had no usable kubeconfig.
func (l *Lister) Server(clusterID string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.cache[clusterID]; c != nil {
		return c.host
	}
	return ""
}

// sameUUIDs counts the nodes whose systemUUID is the uuid of the cluster's VM of the same name.
// CloudStack's KVM agent gives the libvirt domain the VM's uuid and writes it as the SMBIOS
// system UUID (LibvirtComputingResource.createVMFromSpec and LibvirtVMDef.GuestDef at 4.17.0.0),
// which the kubelet reports; no real cluster has been seen to confirm it, so the check does not
// act on it yet and only logs the count, for operators to compare with the node count.
func sameUUIDs(nodes []Node, vms []collector.MappedVM) int {
	byName := make(map[string]string, len(vms))
	for _, vm := range vms {
		byName[strings.ToLower(vm.Name)] = strings.ToLower(vm.ID)
	}
	n := 0
	for _, node := range nodes {
		if id, ok := byName[node.Name]; ok && id != "" && id == strings.ToLower(node.SystemUUID) {
			n++
		}
	}
	return n
}

// refetch tells whether a fresh kubeconfig from CloudStack could cure err.
func refetch(err error) bool {
	switch Reason(err) {
	case reasonAuth, reasonUnreachable, reasonTLS:
		return true
	}
	return false
}
