package kubeapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// maxKubeconfig bounds a kubeconfig; a kubeadm admin.conf is about 5.5 KiB, and a CA bundle
	// of a dozen certificates adds about 20 KiB.
	maxKubeconfig = 64 << 10
	// maxKubeconfigNodes bounds the YAML nodes (mappings, sequences, scalars) of a kubeconfig:
	// kubeadm's admin.conf has 43, one with a dozen contexts a few hundred.
	maxKubeconfigNodes = 2000
	// idleClient is how long a cached client lives unused: a cluster gone from CloudStack takes
	// its credential out of memory within a day.
	idleClient = 24 * time.Hour
)

// clusterID is what a CloudStack uuid may look like; anything else never becomes a file name.
var clusterID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`)

// client is a cluster's node client built from one kubeconfig. Only the hash of the kubeconfig
// is kept beside it, to see whether a new one says something else.
type client struct {
	nodes          rest.Interface
	conns          *connBudget
	closeIdle      func()
	host           string
	sum            [sha256.Size]byte
	fromCloudStack bool
	used           time.Time
}

func (c *client) origin() string {
	if c.fromCloudStack {
		return "getKubernetesClusterConfig"
	}
	return "kubeconfig_dir"
}

// client returns the cluster's client: from its file in the kubeconfig directory when there is
// one (read every time, so that a replaced file takes effect at once), else from CloudStack,
// asked only when nothing is cached or refresh is set.
func (l *Lister) client(ctx context.Context, id string, refresh bool) (*client, error) {
	if !clusterID.MatchString(id) {
		return nil, withReason(reasonKubeconfig, fmt.Errorf("cluster id %q is not a uuid", id))
	}
	data, found, err := l.readFile(id)
	if err != nil {
		return nil, err
	}
	fromCloudStack := !found
	if !found {
		if l.opts.Configs == nil {
			return nil, withReason(reasonKubeconfig, fmt.Errorf("no %s.conf in the kubeconfig directory", id))
		}
		if cached := l.cached(id); cached != nil && cached.fromCloudStack && !refresh {
			return cached, nil
		}
		data, err = l.opts.Configs.KubernetesClusterConfig(ctx, id)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, withReason(reasonTimeout, err)
			}
			return nil, withReason(reasonKubeconfig, err)
		}
	}
	if len(data) > maxKubeconfig {
		return nil, withReason(reasonKubeconfig, fmt.Errorf("kubeconfig of %d bytes is over the limit of %d", len(data), maxKubeconfig))
	}
	sum := sha256.Sum256(data)
	if cached := l.cached(id); cached != nil && cached.sum == sum && cached.fromCloudStack == fromCloudStack {
		return cached, nil
	}
	rc, err := restConfig(data, l.opts.Timeout)
	if err != nil {
		return nil, err
	}
	conns := newConnBudget()
	hc, err := httpClient(rc, conns)
	if err != nil {
		return nil, withReason(reasonKubeconfig, errors.New("no client can be made from the kubeconfig"))
	}
	nodes, err := rest.RESTClientForConfigAndClient(rc, hc)
	if err != nil {
		return nil, withReason(reasonKubeconfig, errors.New("no client can be made from the kubeconfig"))
	}
	cl := &client{nodes: nodes, conns: conns, closeIdle: hc.CloseIdleConnections, host: rc.Host, sum: sum, fromCloudStack: fromCloudStack, used: l.opts.Now()}
	l.mu.Lock()
	l.cache[id] = cl
	l.mu.Unlock()
	return cl, nil
}

// cached returns the cached client of id, marking it used, and drops the clients nobody used for
// idleClient, at most once a minute.
func (l *Lister) cached(id string) *client {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > time.Minute {
		l.lastSweep = now
		for k, c := range l.cache {
			if now.Sub(c.used) > idleClient {
				delete(l.cache, k)
			}
		}
	}
	c := l.cache[id]
	if c != nil {
		c.used = now
	}
	return c
}

// readFile reads <dir>/<id>.conf; a missing file is not an error, any other failure is.
func (l *Lister) readFile(id string) ([]byte, bool, error) {
	if l.opts.KubeconfigDir == "" {
		return nil, false, nil
	}
	f, err := os.Open(filepath.Join(l.opts.KubeconfigDir, id+".conf"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, withReason(reasonKubeconfig, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKubeconfig+1))
	if err != nil {
		return nil, false, withReason(reasonKubeconfig, fmt.Errorf("read %s: %w", f.Name(), err))
	}
	return data, true, nil
}

// restConfig turns a kubeconfig into a client configuration with clientcmd. Only self-contained
// kubeconfigs are taken: a kubeconfig from CloudStack is what the cluster's control node gave CKS,
// so whoever is root there writes it, and a reference to a local file (a token file, a key)
// would send that file to their server, and a credential plugin would run their command here.
// The errors of clientcmd can quote the document, so they are replaced by a fixed text.
func restConfig(data []byte, timeout time.Duration) (*rest.Config, error) {
	if err := plainYAML(data); err != nil {
		return nil, err
	}
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, withReason(reasonKubeconfig, errors.New("the kubeconfig cannot be read"))
	}
	if err := selfContained(raw); err != nil {
		return nil, err
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*raw, raw.CurrentContext, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, withReason(reasonKubeconfig, errors.New("the kubeconfig is incomplete"))
	}
	if u, err := url.Parse(rc.Host); err != nil || u.Scheme != "https" || u.Host == "" || rc.Insecure {
		return nil, withReason(reasonTLS, errors.New("the kubeconfig's server is not an https URL verified against a CA"))
	}
	rc.Timeout = timeout
	// The core group's REST path; answers are decoded by list, so the scheme needs no types but
	// metav1.Status, which client-go decodes an error answer into for its message.
	rc.APIPath = "/api"
	rc.GroupVersion = &schema.GroupVersion{Version: "v1"}
	rc.NegotiatedSerializer = serializer.NewCodecFactory(statusScheme).WithoutConversion()
	rc.UserAgent = "cks-drift-exporter"
	rc.WarningHandler = rest.NoWarnings{}
	// One list per cluster per cycle, a few pages at most (max_nodes bounds them): client-go's
	// 5-per-second limiter would never protect the API server, only hold a repeated list back.
	rc.QPS = -1
	rc.Wrap(capBodies)
	return rc, nil
}

// plainYAML refuses a kubeconfig with a YAML anchor or alias, or more than maxKubeconfigNodes
// nodes, before clientcmd decodes it. clientcmd (through sigs.k8s.io/yaml) expands every alias
// into a copy: 7.6 KB of nested aliases (three levels of ten aliases to a 3,000-byte string,
// under the decoder's alias ratio) became about 1.1 GB for one cluster, and four such clusters
// ended the exporter with a runtime out-of-memory, which recover cannot catch. A kubeconfig
// never needs an alias (kubeadm and clientcmd write none). Decoding into a yaml.Node keeps an
// alias as a reference to its anchor, so what this check allocates follows the bytes, which
// maxKubeconfig bounds; every document of the stream is looked at.
func plainYAML(data []byte) error {
	d := yaml.NewDecoder(bytes.NewReader(data))
	nodes := 0
	for {
		var doc yaml.Node
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return withReason(reasonKubeconfig, errors.New("the kubeconfig cannot be read"))
		}
		if err := plainNode(&doc, &nodes); err != nil {
			return err
		}
	}
}

// plainNode walks n's tree (never an alias's target), counting its nodes into *count.
func plainNode(n *yaml.Node, count *int) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return withReason(reasonKubeconfig, errors.New("the kubeconfig has YAML anchors or aliases, which no kubeconfig needs"))
	}
	if *count++; *count > maxKubeconfigNodes {
		return withReason(reasonKubeconfig, fmt.Errorf("the kubeconfig has more than %d YAML nodes", maxKubeconfigNodes))
	}
	for _, c := range n.Content {
		if err := plainNode(c, count); err != nil {
			return err
		}
	}
	return nil
}

// statusScheme knows only the Status of an error answer ("nodes is forbidden: User ... cannot
// list resource"). Without it client-go cannot decode one and reports every 401 and 403 as
// "unknown", which leaves a missing ClusterRoleBinding undiagnosable.
var statusScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// selfContained refuses what would make the exporter read local files, run commands, skip TLS
// verification or go through a proxy the kubeconfig names.
func selfContained(raw *clientcmdapi.Config) error {
	ctx := raw.Contexts[raw.CurrentContext]
	if ctx == nil {
		return withReason(reasonKubeconfig, errors.New("the kubeconfig has no current context"))
	}
	cluster := raw.Clusters[ctx.Cluster]
	if cluster == nil {
		return withReason(reasonKubeconfig, errors.New("the kubeconfig's context names no cluster"))
	}
	if cluster.InsecureSkipTLSVerify {
		return withReason(reasonTLS, errors.New("the kubeconfig turns TLS verification off"))
	}
	if cluster.CertificateAuthority != "" || cluster.ProxyURL != "" {
		return withReason(reasonKubeconfig, errors.New("the kubeconfig names a CA file or a proxy; only inline data is used"))
	}
	if user := raw.AuthInfos[ctx.AuthInfo]; user != nil {
		if user.Exec != nil || user.AuthProvider != nil {
			return withReason(reasonKubeconfig, errors.New("the kubeconfig asks for a credential plugin; only inline credentials are used"))
		}
		if user.TokenFile != "" || user.ClientCertificate != "" || user.ClientKey != "" {
			return withReason(reasonKubeconfig, errors.New("the kubeconfig names credential files; only inline credentials are used"))
		}
	}
	return nil
}
