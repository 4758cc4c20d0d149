// Package simulator is a small CloudStack cloud in one process: the fake CloudStack API and one
// fake control node per CKS cluster, for the demo and the end-to-end tests.
package simulator

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// Simulator holds the fake CloudStack and the clusters' control nodes.
type Simulator struct {
	CloudStack *cloudstacktest.Server
	clientKey  ssh.Signer
	keyPEM     []byte

	mu       sync.Mutex
	nodes    map[string]*sshtest.Server   // by cluster uuid
	kubelets map[string]map[string]string // kubelet version by node name, by cluster uuid
}

// Options configure a simulator.
type Options struct {
	// Listener serves the CloudStack API; nil listens on 127.0.0.1:0.
	Listener net.Listener
}

// New starts the fake CloudStack with an empty world.
func New(o Options) (*Simulator, error) {
	signer, pem, err := sshtest.NewKey()
	if err != nil {
		return nil, err
	}
	s := &Simulator{clientKey: signer, keyPEM: pem, nodes: make(map[string]*sshtest.Server),
		kubelets: make(map[string]map[string]string)}
	if o.Listener != nil {
		s.CloudStack = cloudstacktest.NewServerOn(o.Listener)
	} else {
		s.CloudStack = cloudstacktest.NewServer()
	}
	return s, nil
}

// Close stops the control nodes and the API.
func (s *Simulator) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.nodes {
		_ = n.Close()
	}
	s.CloudStack.Close()
}

// Node returns the control node of a cluster.
func (s *Simulator) Node(clusterID string) *sshtest.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodes[clusterID]
}

// ClusterSpec describes a cluster to create. Zero values take sensible defaults.
type ClusterSpec struct {
	Name      string
	State     string // default Running
	Account   string // default "admin"
	ProjectID string
	Project   string
	Controls  int // default 1
	Workers   int // default 2
	Etcd      int
	Zone      string    // default "zone1"
	Created   time.Time // default 40 minutes ago: past the grace period

	// Pre416 names the VMs as releases before 4.16 did, and as clusters created then still are:
	// <prefix>-master (one control node) or <prefix>-master-<i>, and <prefix>-node-<i>.
	Pre416 bool
	// LoginUser, when set, is every node's controlNodeLoginUser detail (as 4.16.1+ records it,
	// "core" for clusters created up to 4.16.0), and the only user the control node lets in.
	LoginUser string
	// NodeUser, when set, is the only user the control node lets in, without a detail that
	// says so (4.14 to 4.16.0 log in as core and record nothing).
	NodeUser string
	// VPCTier reaches the cluster the way 4.18.1+ reaches one on a VPC tier: through a public IP
	// of its own, while the cluster answer's ipaddress (the VPC's source NAT) leads nowhere.
	VPCTier bool
	// NetworkRules gives the cluster the rest of the rules CKS creates on an isolated network
	// (cloudstacktest.World.AddCKSRules) and its networks row, so that the network side is
	// compared: port-forwarding rules to port 22 of the other VMs (from 2223), the firewall
	// rules of the SSH ports, of the control VM's SSH server's port and of 6443, and api-lb.
	NetworkRules bool
	// ExtraDHCP gives the first worker's NIC an extra DHCP option.
	ExtraDHCP bool
	// KubernetesVersion is the semantic version of the cluster's Kubernetes version in
	// CloudStack, and "v" + it the kubelet version of every node; default DefaultKubernetesVersion.
	KubernetesVersion string
}

// Cluster is what AddCluster created.
type Cluster struct {
	ID      string
	Name    string
	Control string   // the first control VM's name
	VMs     []string // every node VM, control first
}

// AddCluster creates a cluster the way CKS does: node VMs named after the cluster, one map row
// each, a public IP with a port-forwarding rule to port 22 of the first control VM, and that VM's
// SSH server, which lists every node VM as a Kubernetes node.
func (s *Simulator) AddCluster(spec ClusterSpec) (Cluster, error) {
	spec = withDefaults(spec)
	user := spec.NodeUser
	if user == "" {
		user = spec.LoginUser
	}
	node, err := sshtest.NewServer(sshtest.Options{AuthorizedKey: s.clientKey.PublicKey(), User: user})
	if err != nil {
		return Cluster{}, err
	}
	var out Cluster
	s.CloudStack.Update(func(w *cloudstacktest.World) {
		prefix := nodePrefix(spec.Name)
		domainID := "d0000000-0000-4000-8000-000000000001"
		account := spec.Account
		if spec.ProjectID != "" {
			account = "PrjAcct-" + spec.Project + "-1"
		}
		newVM := func(name string) *cloudstacktest.VM {
			return w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Account: account, DomainID: domainID, Domain: "ROOT",
				ProjectID: spec.ProjectID, Project: spec.Project, ZoneID: zoneID(spec.Zone), ZoneName: spec.Zone,
				IPAddress: fmt.Sprintf("10.1.%d.%d", len(w.Clusters)%250, len(w.VMs)%250+10), Created: spec.Created})
		}
		stamp := spec.Created.UnixMilli()
		control := func(i int) string { return fmt.Sprintf("%s-control-%x", prefix, stamp+int64(i)) }
		worker := func(i int) string { return fmt.Sprintf("%s-node-%x", prefix, stamp+int64(100+i)) }
		if spec.Pre416 {
			control = func(i int) string { return cloudstacktest.Pre416ControlName(prefix, i, spec.Controls) }
			worker = func(i int) string { return cloudstacktest.Pre416WorkerName(prefix, i) }
		}
		var vms []*cloudstacktest.VM
		for i := 0; i < spec.Controls; i++ {
			vms = append(vms, newVM(control(i)))
		}
		for i := 0; i < spec.Workers; i++ {
			vms = append(vms, newVM(worker(i)))
		}
		for i := 0; i < spec.Etcd; i++ {
			vms = append(vms, newVM(fmt.Sprintf("%s-%d-%x", etcdPrefix(spec.Name), i+1, stamp+int64(200+i))))
		}
		c := cloudstacktest.Cluster{Name: spec.Name, State: spec.State, ZoneID: zoneID(spec.Zone), ZoneName: spec.Zone,
			Account: account, DomainID: domainID, Domain: "ROOT", ProjectID: spec.ProjectID, Project: spec.Project,
			NetworkID: "net-" + prefix, IPAddress: "127.0.0.1", IPAddressID: "ip-" + prefix,
			ControlNodes: int64(spec.Controls), Size: int64(spec.Workers), EtcdNodes: int64(spec.Etcd), Created: spec.Created}
		for _, v := range vms {
			c.VMMap = append(c.VMMap, v.InternalID)
			if spec.LoginUser != "" {
				v.Details = map[string]string{"controlNodeLoginUser": spec.LoginUser}
			}
		}
		if spec.ExtraDHCP && spec.Workers > 0 {
			vms[spec.Controls].ExtraDHCPOptions = []cloudstacktest.ExtraDHCPOption{{Code: 66, Name: "tftp-server-name", Value: "127.0.0.1"}}
		}
		ruleIP, ruleIPID := c.IPAddress, c.IPAddressID
		if spec.VPCTier {
			// The VPC's source NAT answers nothing; the tier's own public IP forwards to the node.
			c.IPAddress, c.IPAddressID = "127.0.0.2", "ip-vpc-"+prefix
			ruleIPID = "ip-tier-" + prefix
		}
		c.KubernetesVersionID = w.KubernetesVersionOf(spec.KubernetesVersion).ID
		stored := w.AddCluster(c)
		sshRule := w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: ruleIPID, IPAddress: ruleIP,
			PublicPort: node.Port(), PrivatePort: 22, VirtualMachineID: vms[0].ID, NetworkID: stored.NetworkID,
			Account: account, DomainID: domainID, ProjectID: spec.ProjectID})
		if spec.NetworkRules {
			addNetworkRules(w, stored, vms, spec.Controls, sshRule)
		}
		out = Cluster{ID: stored.ID, Name: stored.Name, Control: vms[0].Name}
		for _, v := range vms {
			out.VMs = append(out.VMs, v.Name)
		}
	})
	var kubeNodes []string
	for _, name := range out.VMs {
		if !strings.Contains(name, "-etcd") {
			kubeNodes = append(kubeNodes, strings.ToLower(name))
		}
	}
	node.SetNodes(kubeNodes...)
	kubelets := sameVersion(kubeNodes, "v"+spec.KubernetesVersion)
	node.SetVersions(kubelets)
	s.mu.Lock()
	s.kubelets[out.ID] = kubelets
	s.nodes[out.ID] = node
	s.mu.Unlock()
	return out, nil
}

func withDefaults(spec ClusterSpec) ClusterSpec {
	if spec.State == "" {
		spec.State = "Running"
	}
	if spec.Account == "" {
		spec.Account = cloudstacktest.AdminAccount
	}
	if spec.Controls == 0 {
		spec.Controls = 1
	}
	if spec.Workers == 0 {
		spec.Workers = 2
	}
	if spec.Zone == "" {
		spec.Zone = "zone1"
	}
	if spec.KubernetesVersion == "" {
		spec.KubernetesVersion = DefaultKubernetesVersion
	}
	if spec.Created.IsZero() {
		spec.Created = time.Now().Add(-40 * time.Minute).Truncate(time.Second)
	}
	return spec
}

// zoneID is a stable uuid for a zone name, as CloudStack's ids are uuids.
func zoneID(zone string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(zone))
	return fmt.Sprintf("20000000-0000-4000-8000-%012x", h.Sum64()&0xffffffffffff)
}

// nodePrefix is CKS's node name prefix for the simple names the simulator uses.
func nodePrefix(name string) string {
	p := strings.ToLower(name)
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return -1
	}, p)
	if clean != p || clean == "" || clean[0] < 'a' || clean[0] > 'z' {
		clean = "k8s-" + clean
	}
	if len(clean) > 43 {
		clean = clean[:43]
	}
	return clean
}

func etcdPrefix(name string) string {
	p := name + "-etcd"
	if len(p) > 40 {
		p = p[:40]
	}
	return p
}

// WriteFiles writes the client key and a configuration for an exporter that watches the
// simulator into dir, and returns the configuration's path. extra is appended to the check
// section (for example "  interval: 30s\n").
func (s *Simulator) WriteFiles(dir, check, notifier string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, s.keyPEM, 0o600); err != nil {
		return "", err
	}
	cfg := fmt.Sprintf(`# Written by the simulator: an exporter watching the simulated cloud.
cloudstack:
  endpoint: %s
  api_key: %s
  secret_key: %s
check:
%sssh:
  private_key_file: %s
  host_key_policy: pin
  timeout: 5s
notifier:
%sstorage:
  path: %s
`, s.CloudStack.Endpoint(), s.CloudStack.APIKey(), s.CloudStack.SecretKey(), check, keyFile, notifier, filepath.Join(dir, "state.db"))
	path := filepath.Join(dir, "cks-drift-exporter.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// ErrNoCluster is returned by the drift helpers for an unknown cluster.
var ErrNoCluster = errors.New("simulator: no such cluster")
