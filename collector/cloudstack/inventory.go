package cloudstack

import (
	"context"
	"strconv"
	"strings"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// dateLayout is how CloudStack writes dates: 2024-06-05T07:51:22+0000.
const dateLayout = "2006-01-02T15:04:05-0700"

// Inventory reads every cluster, every VM and the port-forwarding rules the key can see. Each
// list is paged, and listed twice when projects are included (project resources only appear with
// projectid=-1), so the number of calls grows with pages, not with clusters.
func (s *Source) Inventory(ctx context.Context) (collector.Inventory, error) {
	c := s.client(ctx)
	scopes := []string{""}
	if s.opts.IncludeProjects {
		scopes = append(scopes, "-1")
	}
	clusters, err := listScopes(scopes, "kubernetes clusters", s.opts.PageSize, clusterID, func(project string, page, size int) (int, []*cs.KubernetesCluster, error) {
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
		return r.Count, r.KubernetesClusters, nil
	})
	if err != nil {
		return collector.Inventory{}, err
	}
	vms, err := listScopes(scopes, "virtual machines", s.opts.PageSize, vmID, func(project string, page, size int) (int, []*cs.VirtualMachine, error) {
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
		return r.Count, r.VirtualMachines, nil
	})
	if err != nil {
		return collector.Inventory{}, err
	}
	var rules []*cs.PortForwardingRule
	if ruleScopes := s.ruleScopes(clusters); len(ruleScopes) > 0 {
		rules, err = listScopes(ruleScopes, "port forwarding rules", s.opts.PageSize, ruleID, func(project string, page, size int) (int, []*cs.PortForwardingRule, error) {
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
			return r.Count, r.PortForwardingRules, nil
		})
		if err != nil {
			return collector.Inventory{}, err
		}
	}
	return s.convert(clusters, vms, rules), nil
}

// The ids listScopes checks; a null item has none.
func clusterID(k *cs.KubernetesCluster) string {
	if k == nil {
		return ""
	}
	return k.Id
}

func vmID(v *cs.VirtualMachine) string {
	if v == nil {
		return ""
	}
	return v.Id
}

func ruleID(r *cs.PortForwardingRule) string {
	if r == nil {
		return ""
	}
	return r.Id
}

// ruleScopes returns the scopes whose port-forwarding rules are needed: those of the clusters
// behind a public IP, where the SSH port of the control node has to be looked up. None when the
// port is configured.
func (s *Source) ruleScopes(clusters []*cs.KubernetesCluster) []string {
	if s.opts.SSHPort != 0 {
		return nil
	}
	var account, projects bool
	for _, c := range clusters {
		if c.Ipaddressid == "" {
			continue
		}
		if c.Projectid != "" {
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

func (s *Source) convert(clusters []*cs.KubernetesCluster, vms []*cs.VirtualMachine, rules []*cs.PortForwardingRule) collector.Inventory {
	inv := collector.Inventory{Clusters: make([]collector.Cluster, 0, len(clusters)), VMs: make([]collector.VM, 0, len(vms))}
	seen := make(map[string]bool, len(vms))
	for _, v := range vms {
		if v == nil || v.Id == "" || seen[v.Id] {
			continue
		}
		seen[v.Id] = true
		inv.VMs = append(inv.VMs, collector.VM{ID: v.Id, Name: v.Name, State: v.State, Account: v.Account,
			DomainID: v.Domainid, ProjectID: v.Projectid, Created: parseDate(v.Created)})
	}
	sshPorts := make(map[string]int) // ipaddressid + " " + VM uuid -> public port of the rule to port 22
	for _, r := range rules {
		if r == nil || r.Privateport != "22" {
			continue
		}
		if port, err := strconv.Atoi(r.Publicport); err == nil {
			sshPorts[r.Ipaddressid+" "+r.Virtualmachineid] = port
		}
	}
	clusterSeen := make(map[string]bool, len(clusters))
	for _, k := range clusters {
		if k == nil || k.Id == "" || clusterSeen[k.Id] {
			continue
		}
		clusterSeen[k.Id] = true
		inv.Clusters = append(inv.Clusters, s.convertCluster(k, sshPorts))
	}
	return inv
}

func (s *Source) convertCluster(k *cs.KubernetesCluster, sshPorts map[string]int) collector.Cluster {
	c := collector.Cluster{
		ID: k.Id, Name: k.Name, State: k.State, ClusterType: k.Clustertype,
		ZoneID: k.Zoneid, ZoneName: k.Zonename, Account: k.Account, DomainID: k.Domainid, Domain: k.Domain,
		ProjectID: k.Projectid, Project: k.Project, NetworkID: k.Networkid, Created: parseDate(k.Created),
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
			Created: parseDate(v.Created), Etcd: etcd || collector.IsEtcdName(c, v.Name)})
	}
	c.SSH = s.sshTarget(k, c, sshPorts)
	return c
}

// sshTarget finds the first control node as CKS exposes it: behind the cluster's public IP with a
// port-forwarding rule (2222 unless a scale-down moved it), or on its own address, port 22, on a
// shared network.
func (s *Source) sshTarget(k *cs.KubernetesCluster, c collector.Cluster, sshPorts map[string]int) collector.SSHTarget {
	control := firstControl(k, c)
	if control == nil {
		return collector.SSHTarget{}
	}
	t := collector.SSHTarget{Host: k.Ipaddress, Port: 2222}
	if k.Ipaddress != "" {
		if port, ok := sshPorts[k.Ipaddressid+" "+control.Id]; ok {
			t.Port = port
		}
	} else {
		t = collector.SSHTarget{Host: nicAddress(control, c.NetworkID), Port: 22}
	}
	if s.opts.SSHPort != 0 {
		t.Port = s.opts.SSHPort
	}
	return t
}

// firstControl returns the control VM that CKS forwards SSH to: the first control VM of the map,
// preferring a Running one (a Destroyed first control node cannot answer), never an etcd VM.
func firstControl(k *cs.KubernetesCluster, c collector.Cluster) *cs.VirtualMachine {
	var first *cs.VirtualMachine
	for _, v := range k.Virtualmachines {
		if v == nil || !strings.Contains(strings.ToLower(v.Name), "-control") || collector.IsEtcdName(c, v.Name) {
			continue
		}
		if v.State == "Running" {
			return v
		}
		if first == nil {
			first = v
		}
	}
	if first != nil {
		return first
	}
	for _, v := range k.Virtualmachines {
		if v != nil && v.State == "Running" && !collector.IsEtcdName(c, v.Name) {
			return v
		}
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

func parseDate(s string) time.Time {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
