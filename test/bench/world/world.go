// Package world builds the scale benchmark's simulated cloud: a fake CloudStack holding N CKS
// clusters (one control and two worker VMs each, one port-forwarding rule per VM, as CKS creates
// them on an isolated network) plus VMs that belong to no cluster, and one fake control node (a
// real SSH server on loopback) per cluster, a share of which hang in the handshake. A share of
// the clusters has drift, one piece each, and Counts says which findings the exporter must make.
//
// The world is written straight into the fake's tables with explicit ids, so that building
// 10,000 clusters and 50,000 VMs takes about a second.
package world

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// Spec describes a world.
type Spec struct {
	Clusters int
	// StrayVMs are VMs that belong to no cluster and are not named like a node of one.
	StrayVMs int
	// ProjectShare is the share of clusters owned by a project (listed only with projectid=-1).
	ProjectShare float64
	// HangShare is the share of control nodes that accept TCP and never answer the SSH
	// handshake, so that the client waits for ssh.timeout.
	HangShare float64
	// Latency is added by the fake CloudStack to every API answer.
	Latency time.Duration
	// Handshake is waited by every (non-hanging) control node before the SSH handshake.
	Handshake time.Duration
	// DriftShare is the share of clusters with drift, one kind each, in turn (DriftKinds).
	DriftShare float64
}

// DriftKinds are the pieces of drift a world's drifting clusters get, in turn: each cluster one
// piece that the API shows, named by the kind of its finding (KindOf), with what tells it apart
// after a space: "unmapped_vm by vmtype" is a VM CKS deployed for the cluster's account (vmtype
// cksnode), in no map and named like no node, as a tenant may rename one; network_rule_missing
// is the firewall rule of the API port deleted (addRules), offering_missing the workers' service
// offering inactive.
var DriftKinds = []string{"unmapped_vm", "vm_not_a_node", "node_without_vm", "vm_map_incomplete", "mapped_vm_expunged",
	"vm_map_excess", "mapped_vm_not_running", "unmapped_vm by vmtype", "network_rule_missing", "offering_missing"}

// KindOf returns the kind of the finding a piece of drift of DriftKinds makes.
func KindOf(piece string) string {
	kind, _, _ := strings.Cut(piece, " ")
	return kind
}

// nodeSide reports whether a piece's kind is found by comparing with the Kubernetes nodes, so
// is not found on a cluster whose control node hangs: the side its declaration gives.
func nodeSide(piece string) bool { return collector.Kind(KindOf(piece)).Side() == collector.SideNode }

// Cluster is what the benchmark needs to know about one cluster.
type Cluster struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ProjectID   string `json:"projectid,omitempty"`
	IPAddressID string `json:"ipaddressid"`
	Hang        bool   `json:"hang,omitempty"`
}

// Counts are the sizes of the world per listing scope: "account" for resources outside
// projects (listed without projectid), "project" for project resources (projectid=-1).
type Counts struct {
	Clusters        int `json:"clusters"`
	ProjectClusters int `json:"project_clusters"`
	VMs             int `json:"vms"`
	ProjectVMs      int `json:"project_vms"`
	Rules           int `json:"rules"` // port-forwarding rules
	ProjectRules    int `json:"project_rules"`
	// The network side's lists: the clusters' networks, firewall and load-balancer rules.
	Networks         int `json:"networks"`
	ProjectNetworks  int `json:"project_networks"`
	Firewall         int `json:"firewall_rules"`
	ProjectFirewall  int `json:"project_firewall_rules"`
	Balancing        int `json:"load_balancer_rules"`
	ProjectBalancing int `json:"project_load_balancer_rules"`
	// Offerings are the service offerings the clusters are deployed with, listed cloud-wide.
	Offerings int `json:"offerings"`
	Hanging   int `json:"hanging"`
	// Drifting clusters, and the findings the exporter must report, by kind.
	Drifting int            `json:"drifting"`
	Findings map[string]int `json:"findings"`
}

// World is a running simulated cloud.
type World struct {
	Spec     Spec
	CS       *cloudstacktest.Server
	Clusters []Cluster
	Counts   Counts

	keyPEM []byte
	nodes  []*sshtest.Server
}

// Domain and zone of every resource.
const (
	domainID = "d0000000-0000-4000-8000-000000000001"
	zoneName = "zone1"
	zoneID   = "20000000-0000-4000-8000-000000000001"
)

// Hangs reports whether cluster i (0-based) of n hangs: exactly floor(n*share) clusters do, spread
// evenly over the world.
func Hangs(i int, share float64) bool {
	return math.Floor(float64(i+1)*share+1e-9) > math.Floor(float64(i)*share+1e-9)
}

// drifts reports whether cluster i has drift, spread evenly like Hangs but shifted.
func drifts(i int, share float64) bool {
	return Hangs(i+13, share)
}

// inProject reports whether cluster i is a project's, spread evenly like Hangs but shifted so
// that the two sets do not coincide.
func inProject(i int, share float64) bool {
	return Hangs(i+7, share)
}

// Build starts the fake CloudStack and the control nodes and fills the world.
func Build(spec Spec) (*World, error) {
	signer, keyPEM, err := sshtest.NewKey()
	if err != nil {
		return nil, err
	}
	w := &World{Spec: spec, CS: cloudstacktest.NewServer(), keyPEM: keyPEM}
	w.CS.SetLatency(spec.Latency)
	if err := w.startNodes(signer.PublicKey()); err != nil {
		w.Close()
		return nil, err
	}
	w.fill()
	return w, nil
}

// CountsOf returns the Counts of the world spec describes, without its control nodes: the
// fake's tables are filled as Build fills them and thrown away.
func CountsOf(spec Spec) Counts {
	w := &World{Spec: spec, CS: cloudstacktest.NewServer()}
	defer w.CS.Close()
	w.fill()
	return w.Counts
}

// startNodes starts one SSH server per cluster, in parallel (each generates a host key).
func (w *World) startNodes(authorized ssh.PublicKey) error {
	n := w.Spec.Clusters
	w.nodes = make([]*sshtest.Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			node, err := sshtest.NewServer(sshtest.Options{AuthorizedKey: authorized, HandshakeDelay: w.Spec.Handshake})
			if err != nil {
				errs[i] = err
				return
			}
			if Hangs(i, w.Spec.HangShare) {
				node.SetMode(sshtest.HangHandshake)
			}
			w.nodes[i] = node
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// uuid returns a well-formed, deterministic uuid in a namespace of its own per kind.
func uuid(kind, n int) string {
	return fmt.Sprintf("be%06x-0000-4000-8000-%012x", kind, n)
}

const (
	kindCluster = iota + 1
	kindVM
	kindRule
	kindIP
	kindProject
	kindOffering
	kindFirewall
)

// Offerings is how many service offerings the world's clusters share, as a cloud offers a few
// sizes: cluster i is deployed with offering i mod Offerings, and from 4.21 names it for its
// workers and the next one for its control nodes (controlofferingid, workerofferingid). One
// more, retiredOffering, is inactive: the workers' offering of the world's offering_missing.
const Offerings = 12

// retiredOffering is the uuid of the inactive offering.
var retiredOffering = uuid(kindOffering, Offerings+1)

// fill writes clusters, VMs and rules into the fake's tables, and each cluster's nodes into its
// control node when there are control nodes (not for CountsOf).
func (w *World) fill() {
	created := time.Now().Add(-40 * time.Minute).Truncate(time.Second)
	stamp := created.UnixMilli()
	w.Counts.Findings = make(map[string]int)
	w.CS.Update(func(cw *cloudstacktest.World) {
		var vmID int64
		newVM := func(vm cloudstacktest.VM) *cloudstacktest.VM {
			vmID++
			vm.InternalID, vm.ID = vmID, uuid(kindVM, int(vmID))
			vm.DisplayName, vm.DomainID, vm.Domain, vm.ZoneID, vm.ZoneName, vm.Created = vm.Name, domainID, "ROOT", zoneID, zoneName, created
			return cw.AddVM(vm) // O(1): the id is given
		}
		offering := func(i int) string { return uuid(kindOffering, i%Offerings+1) }
		for k := range Offerings {
			cw.ServiceOfferings = append(cw.ServiceOfferings, &cloudstacktest.ServiceOffering{InternalID: int64(k + 1), ID: offering(k),
				Name: fmt.Sprintf("cks-%d-cpu", 2+k), State: "Active"})
		}
		cw.ServiceOfferings = append(cw.ServiceOfferings, &cloudstacktest.ServiceOffering{InternalID: Offerings + 1, ID: retiredOffering,
			Name: "cks-retired", State: "Inactive"})
		w.Counts.Offerings = Offerings + 1 // listed with state=all
		cw.Clusters = make([]*cloudstacktest.Cluster, 0, w.Spec.Clusters)
		for i := range w.Spec.Clusters {
			name := fmt.Sprintf("cluster-%05d", i+1)
			account := fmt.Sprintf("account-%03d", i%100)
			var projectID, project string
			if inProject(i, w.Spec.ProjectShare) {
				p := i % 10
				projectID, project = uuid(kindProject, p+1), fmt.Sprintf("project-%02d", p)
				account = "PrjAcct-" + project + "-1"
			}
			network := fmt.Sprintf("net-%05d", i+1)
			// Clusters were created one a second, the last one as its VMs: a VM CKS deployed that
			// is in no map goes to its owner's cluster created last before it, so no two
			// clusters of an owner may tie.
			clusterCreated := created.Add(time.Duration(i+1-w.Spec.Clusters) * time.Second)
			// Every VM CKS deploys is recorded as such (user_vm_type cksnode, vmtype from 4.20).
			mk := func(role string, k int) *cloudstacktest.VM {
				return newVM(cloudstacktest.VM{Name: fmt.Sprintf("%s-%s-%x", name, role, stamp+int64(k)), State: "Running", Type: cloudstacktest.CKSNodeType,
					Account: account, ProjectID: projectID, Project: project, NetworkID: network,
					IPAddress: fmt.Sprintf("10.%d.%d.%d", 1+i/62500, i/250%250, 10+k)})
			}
			vms := []*cloudstacktest.VM{mk("control", 0), mk("node", 100), mk("node", 101)}
			hang := Hangs(i, w.Spec.HangShare)
			// Without drift kubectl on the control node lists every VM as a node.
			nodes := []string{strings.ToLower(vms[0].Name), strings.ToLower(vms[1].Name), strings.ToLower(vms[2].Name)}
			size, extra, state, piece := int64(2), 0, "Running", ""
			if drifts(i, w.Spec.DriftShare) {
				piece = DriftKinds[w.Counts.Drifting%len(DriftKinds)]
				w.Counts.Drifting++
				switch piece {
				case "unmapped_vm": // a node whose VM is missing from the map
					vm := mk("node", 102)
					nodes = append(nodes, strings.ToLower(vm.Name))
					extra++
				case "vm_not_a_node": // Kubernetes forgot a worker
					nodes = nodes[:2]
				case "node_without_vm":
					nodes = append(nodes, name+"-node-ghost")
				case "vm_map_incomplete": // a map row of a removed VM: the API shows a count gap
					size = 3
				case "mapped_vm_expunged": // a mapped worker destroyed but not yet expunged
					vms[2].State = "Destroyed"
					nodes = nodes[:2]
				case "vm_map_excess": // a scale-down recorded size 1 and kept both workers (#12229)
					size = 1
				case "mapped_vm_not_running": // a worker stopped, its node NotReady, the cluster in Alert
					vms[2].State, state = "Stopped", "Alert"
				case "unmapped_vm by vmtype": // a VM CKS deployed for the cluster, renamed by its tenant
					vm := newVM(cloudstacktest.VM{Name: fmt.Sprintf("renamed-%05d", i+1), State: "Running", Type: cloudstacktest.CKSNodeType,
						Account: account, ProjectID: projectID, Project: project, NetworkID: network,
						IPAddress: fmt.Sprintf("10.%d.%d.%d", 1+i/62500, i/250%250, 13)})
					vm.Created = clusterCreated // with its cluster, before the owner's next: attributed to it
					extra++
				}
				if !hang || !nodeSide(piece) {
					w.Counts.Findings[KindOf(piece)]++
				}
			}
			if w.nodes != nil {
				w.nodes[i].SetNodes(nodes...)
			}
			c := &cloudstacktest.Cluster{
				ID: uuid(kindCluster, i+1), InternalID: int64(i + 1), Name: name, State: state, ClusterType: "CloudManaged",
				ZoneID: zoneID, ZoneName: zoneName, Account: account, DomainID: domainID, Domain: "ROOT",
				ProjectID: projectID, Project: project, NetworkID: network,
				IPAddress: "127.0.0.1", IPAddressID: uuid(kindIP, i+1),
				ControlNodes: 1, Size: size, Created: clusterCreated,
				ServiceOfferingID: offering(i), WorkerOfferingID: offering(i), ControlOfferingID: offering(i + 1),
			}
			if piece == "offering_missing" { // its workers' offering retired: the next scale fails
				c.WorkerOfferingID = retiredOffering
			}
			for _, v := range vms {
				c.VMMap = append(c.VMMap, v.InternalID)
			}
			cw.Clusters = append(cw.Clusters, c) // in id order already: no sort per insert
			sshPort := 2222
			if w.nodes != nil {
				sshPort = w.nodes[i].Port() // the control node's rule leads to its SSH server
			}
			rules := addRules(cw, c, vms, sshPort, piece == "network_rule_missing")
			w.Clusters = append(w.Clusters, Cluster{ID: c.ID, Name: name, ProjectID: projectID, IPAddressID: c.IPAddressID, Hang: hang})
			if projectID != "" {
				w.Counts.ProjectClusters++
				w.Counts.ProjectVMs += len(vms) + extra
				w.Counts.ProjectRules += rules.forwarding
				w.Counts.ProjectNetworks++
				w.Counts.ProjectFirewall += rules.firewall
				w.Counts.ProjectBalancing += rules.balancing
			} else {
				w.Counts.Clusters++
				w.Counts.VMs += len(vms) + extra
				w.Counts.Rules += rules.forwarding
				w.Counts.Networks++
				w.Counts.Firewall += rules.firewall
				w.Counts.Balancing += rules.balancing
			}
			if hang {
				w.Counts.Hanging++
			}
		}
		for j := range w.Spec.StrayVMs {
			state := "Running"
			if j%10 == 9 {
				state = "Stopped"
			}
			newVM(cloudstacktest.VM{Name: fmt.Sprintf("app-%06d", j+1), State: state,
				Account: fmt.Sprintf("account-%03d", j%100), NetworkID: fmt.Sprintf("app-net-%03d", j%100),
				IPAddress: fmt.Sprintf("10.200.%d.%d", j/250%250, 10+j%250)})
			w.Counts.VMs++
		}
	})
}

// Totals returns the number of clusters, VMs and port-forwarding rules over both scopes.
func (c Counts) Totals() (clusters, vms, rules int) {
	return c.Clusters + c.ProjectClusters, c.VMs + c.ProjectVMs, c.Rules + c.ProjectRules
}

// SSHStats sums the control nodes' counters.
type SSHStats struct {
	Connections int `json:"connections"`
	Sessions    int `json:"sessions"`
	Commands    int `json:"commands"`
}

// SSH returns the control nodes' counters summed.
func (w *World) SSH() SSHStats {
	var s SSHStats
	for _, n := range w.nodes {
		s.Connections += n.Connections()
		s.Sessions += n.Sessions()
		s.Commands += n.Commands()
	}
	return s
}

// APICalls counts the API calls the fake received, by command.
func (w *World) APICalls() map[string]int {
	out := make(map[string]int)
	for _, c := range w.CS.Calls() {
		out[c.Command]++
	}
	return out
}

// KeyPEM is the client key the control nodes accept.
func (w *World) KeyPEM() []byte { return w.keyPEM }

// Config are the exporter settings the benchmark uses.
type Config struct {
	Concurrency     int
	SSHTimeout      time.Duration
	PageSize        int
	IncludeProjects bool
	HostKeyPolicy   string
	// NotifierConcurrency is notifier.concurrency; 0 leaves the key out (the exporter's default).
	NotifierConcurrency int
}

// WriteFiles writes the client key and an exporter configuration into dir and returns the
// configuration's path. The interval is long: the benchmark starts cycles with POST /-/check.
func (w *World) WriteFiles(dir string, c Config) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, w.keyPEM, 0o600); err != nil {
		return "", err
	}
	cfg := fmt.Sprintf(`# Written by cks-drift-benchfake: an exporter watching the benchmark's simulated cloud.
cloudstack:
  endpoint: %s
  api_key: %s
  secret_key: %s
  page_size: %d
check:
  interval: 1h
  concurrency: %d
  include_projects: %t
ssh:
  private_key_file: %s
  host_key_policy: %s
  timeout: %s
storage:
  path: %s
`, w.CS.Endpoint(), w.CS.APIKey(), w.CS.SecretKey(), c.PageSize, c.Concurrency, c.IncludeProjects,
		keyFile, c.HostKeyPolicy, c.SSHTimeout, filepath.Join(dir, "state.db"))
	if c.NotifierConcurrency > 0 {
		cfg += fmt.Sprintf("notifier:\n  concurrency: %d\n", c.NotifierConcurrency)
	}
	path := filepath.Join(dir, "cks-drift-exporter.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// Close stops the control nodes and the fake CloudStack.
func (w *World) Close() {
	var wg sync.WaitGroup
	for _, n := range w.nodes {
		if n == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = n.Close() }()
	}
	wg.Wait()
	w.CS.Close()
}

// Prefix is the node name prefix of a cluster's VMs (its name: the benchmark's names are valid
// host name labels).
func Prefix(name string) string { return strings.ToLower(name) }
