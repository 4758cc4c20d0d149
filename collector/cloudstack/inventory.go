package cloudstack

import (
	"context"
	"strconv"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Inventory reads every cluster, every VM and the port-forwarding rules the key can see. Each
// list is paged, and listed twice when projects are included (project resources only appear with
// projectid=-1), so the number of calls grows with pages, not with clusters.
func (s *Source) Inventory(ctx context.Context) (collector.Inventory, error) {
	c := s.api.SDK(ctx)
	scopes := []string{""}
	if s.opts.IncludeProjects {
		scopes = append(scopes, "-1")
	}
	// Each page is shrunk to what the check needs as soon as it is decoded: the SDK's structs
	// of a whole large cloud would take several times the memory of the inventory itself.
	clusters, err := listScopes(scopes, "kubernetes clusters", s.opts.PageSize, func(r clusterRow) string { return r.cluster.ID },
		func(project string, page, size int) (int, []clusterRow, error) {
			p := c.Kubernetes.NewListKubernetesClustersParams()
			p.SetListall(true)
			p.SetPage(page)
			p.SetPagesize(size)
			if project != "" {
				p.SetProjectid(project)
			}
			r, err := c.Kubernetes.ListKubernetesClusters(p)
			if err != nil {
				return 0, nil, err
			}
			return r.Count, shrink(r.KubernetesClusters, toClusterRow), nil
		})
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes(scopes, "virtual machines", s.opts.PageSize, func(v collector.VM) string { return v.ID },
		func(project string, page, size int) (int, []collector.VM, error) {
			p := c.VirtualMachine.NewListVirtualMachinesParams()
			p.SetListall(true)
			p.SetDetails([]string{"min"})
			p.SetPage(page)
			p.SetPagesize(size)
			if project != "" {
				p.SetProjectid(project)
			}
			r, err := c.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				return 0, nil, err
			}
			return r.Count, shrink(r.VirtualMachines, toVM), nil
		})
	if err != nil {
		return collector.Inventory{}, err
	}
	var rules []pfRule
	if ruleScopes := s.ruleScopes(clusters); len(ruleScopes) > 0 {
		rules, err = listScopes(ruleScopes, "port forwarding rules", s.opts.PageSize, func(r pfRule) string { return r.id },
			func(project string, page, size int) (int, []pfRule, error) {
				p := c.Firewall.NewListPortForwardingRulesParams()
				p.SetListall(true)
				p.SetPage(page)
				p.SetPagesize(size)
				if project != "" {
					p.SetProjectid(project)
				}
				r, err := c.Firewall.ListPortForwardingRules(p)
				if err != nil {
					return 0, nil, err
				}
				return r.Count, shrink(r.PortForwardingRules, toRule), nil
			})
		if err != nil {
			return collector.Inventory{}, err
		}
	}
	return s.convert(clusters, vms, rules), nil
}

// clusterRow is a listed cluster with what its SSH target needs once the rules are known.
type clusterRow struct {
	cluster     collector.Cluster
	ipAddress   string
	ipAddressID string
	controlID   string // the first control VM; empty when there is none
	controlNIC  string // its address on the cluster's network
}

// pfRule is a port-forwarding rule as far as the SSH port of a control node needs it.
type pfRule struct {
	id, ipAddressID, vmID string
	publicPort            string
	privatePort           string
}

// shrink converts a page of SDK items; a null item becomes a zero value, which has no id.
func shrink[T any, U any](items []*T, to func(*T) U) []U {
	out := make([]U, len(items))
	for i, it := range items {
		if it != nil {
			out[i] = to(it)
		}
	}
	return out
}

func toVM(v *cs.VirtualMachine) collector.VM {
	return collector.VM{ID: v.Id, Name: v.Name, State: v.State, Account: v.Account,
		DomainID: v.Domainid, ProjectID: v.Projectid, Created: cloudstackapi.ParseDate(v.Created)}
}

func toRule(r *cs.PortForwardingRule) pfRule {
	return pfRule{id: r.Id, ipAddressID: r.Ipaddressid, vmID: r.Virtualmachineid, publicPort: r.Publicport, privatePort: r.Privateport}
}

func toClusterRow(k *cs.KubernetesCluster) clusterRow {
	c := collector.Cluster{
		ID: k.Id, Name: k.Name, State: k.State, ClusterType: k.Clustertype,
		ZoneID: k.Zoneid, ZoneName: k.Zonename, Account: k.Account, DomainID: k.Domainid, Domain: k.Domain,
		ProjectID: k.Projectid, Project: k.Project, NetworkID: k.Networkid, Created: cloudstackapi.ParseDate(k.Created),
		ControlNodes: int(k.Controlnodes), WorkerNodes: int(k.Size), EtcdNodes: int(k.Etcdnodes),
	}
	if c.ControlNodes == 0 && k.Masternodes > 0 { // releases before 4.16 call them master nodes
		c.ControlNodes = int(k.Masternodes)
	}
	for _, v := range k.Virtualmachines {
		if v == nil {
			continue
		}
		_, etcd := k.Etcdips[v.Name]
		c.Mapped = append(c.Mapped, collector.MappedVM{ID: v.Id, Name: v.Name, State: v.State,
			Created: cloudstackapi.ParseDate(v.Created), Etcd: etcd || collector.IsEtcdName(c, v.Name)})
	}
	row := clusterRow{cluster: c, ipAddress: k.Ipaddress, ipAddressID: k.Ipaddressid}
	if control := firstControl(k, c); control != nil {
		row.controlID, row.controlNIC = control.Id, nicAddress(control, c.NetworkID)
	}
	return row
}

// ruleScopes returns the scopes whose port-forwarding rules are needed: those of the clusters
// behind a public IP, where the SSH port of the control node has to be looked up. None when the
// port is configured.
func (s *Source) ruleScopes(clusters []clusterRow) []string {
	if s.opts.SSHPort != 0 {
		return nil
	}
	var account, projects bool
	for _, r := range clusters {
		if r.ipAddressID == "" {
			continue
		}
		if r.cluster.ProjectID != "" {
			projects = true
		} else {
			account = true
		}
	}
	var scopes []string
	if account {
		scopes = append(scopes, "")
	}
	if projects && s.opts.IncludeProjects {
		scopes = append(scopes, "-1")
	}
	return scopes
}

// convert joins the lists: VMs and clusters listed in both scopes are kept once.
func (s *Source) convert(clusters []clusterRow, vms []collector.VM, rules []pfRule) collector.Inventory {
	inv := collector.Inventory{Clusters: make([]collector.Cluster, 0, len(clusters)), VMs: make([]collector.VM, 0, len(vms))}
	seen := make(map[string]bool, len(vms))
	for _, v := range vms {
		if !seen[v.ID] {
			seen[v.ID] = true
			inv.VMs = append(inv.VMs, v)
		}
	}
	sshPorts := make(map[string]int) // ipaddressid + " " + VM uuid -> public port of the rule to port 22
	for _, r := range rules {
		if r.privatePort != "22" {
			continue
		}
		if port, err := strconv.Atoi(r.publicPort); err == nil {
			sshPorts[r.ipAddressID+" "+r.vmID] = port
		}
	}
	clusterSeen := make(map[string]bool, len(clusters))
	for _, r := range clusters {
		if clusterSeen[r.cluster.ID] {
			continue
		}
		clusterSeen[r.cluster.ID] = true
		c := r.cluster
		c.SSH = s.sshTarget(r, sshPorts)
		inv.Clusters = append(inv.Clusters, c)
	}
	return inv
}

// sshTarget finds the first control node as CKS exposes it: behind the cluster's public IP with a
// port-forwarding rule (2222 unless a scale-down moved it), or on its own address, port 22, on a
// shared network.
func (s *Source) sshTarget(r clusterRow, sshPorts map[string]int) collector.SSHTarget {
	if r.controlID == "" {
		return collector.SSHTarget{}
	}
	t := collector.SSHTarget{Host: r.ipAddress, Port: 2222}
	if r.ipAddress != "" {
		if port, ok := sshPorts[r.ipAddressID+" "+r.controlID]; ok {
			t.Port = port
		}
	} else {
		t = collector.SSHTarget{Host: r.controlNIC, Port: 22}
	}
	if s.opts.SSHPort != 0 {
		t.Port = s.opts.SSHPort
	}
	return t
}

// firstControl returns the control VM that CKS forwards SSH to (collector.FirstControl).
func firstControl(k *cs.KubernetesCluster, c collector.Cluster) *cs.VirtualMachine {
	var vms []*cs.VirtualMachine
	var candidates []collector.ControlCandidate
	for _, v := range k.Virtualmachines {
		if v == nil {
			continue
		}
		_, etcd := k.Etcdips[v.Name]
		vms = append(vms, v)
		candidates = append(candidates, collector.ControlCandidate{Name: v.Name, State: v.State, Etcd: etcd})
	}
	if i := collector.FirstControl(c, candidates, false); i >= 0 {
		return vms[i]
	}
	return nil
}

func nicAddress(v *cs.VirtualMachine, networkID string) string {
	for _, n := range v.Nic {
		if n.Networkid == networkID && n.Ipaddress != "" {
			return n.Ipaddress
		}
	}
	for _, n := range v.Nic {
		if n.Isdefault && n.Ipaddress != "" {
			return n.Ipaddress
		}
	}
	return ""
}
