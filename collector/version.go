package collector

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Node is one Kubernetes node of a node list.
type Node struct {
	Name string
	// KubeletVersion is status.nodeInfo.kubeletVersion as the node source read it ("v1.28.4");
	// empty when the source does not say (kubectl's "-o name", "<none>").
	KubeletVersion string
}

// NodeNames returns the names of nodes, in order.
func NodeNames(nodes []Node) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names
}

// MaxVersionBytes bounds a version string the check reads, and so the kubelet version a node
// source keeps (a longer one is unknown): the longest real kubelet versions
// ("v1.28.4-eks-1-28-20231201" and the like) are well below it.
const MaxVersionBytes = 64

// version is the major.minor.patch of a Kubernetes version.
type version [3]uint64

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// parseVersion reads the major.minor.patch of a version as kubelets report it ("v1.23.3",
// "v1.23.3+k3s1", "v1.29.0-rc.1", "v1.28.4-eks-1-28-20231201") and as CloudStack records it
// ("1.23.3"). A leading "v" is dropped; what follows the patch number must be a semantic
// version's pre-release ("-...") or build metadata ("+..."), and is not compared: CloudStack's
// semantic version has neither (addKubernetesSupportedVersion accepts only digits and dots,
// KubernetesVersionManagerImpl.isSemanticVersion at 4.14.0.0 and 4.19.0.0), build metadata never
// counts for a version's precedence (SemVer 2.0.0, item 10), and a pre-release of 1.29.0 is the
// 1.29.0 line a cluster was deployed with. Anything else (four numbers, no patch, a number of
// more than nine digits, other characters, more than MaxVersionBytes bytes) is not a version: the
// comparison is skipped rather than a finding made from a guess.
func parseVersion(s string) (version, bool) {
	if len(s) > MaxVersionBytes {
		return version{}, false
	}
	s = strings.TrimPrefix(s, "v")
	var v version
	for i := range v {
		end := 0
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if end == 0 || end > 9 {
			return version{}, false
		}
		v[i], _ = strconv.ParseUint(s[:end], 10, 64)
		s = s[end:]
		if i < 2 {
			if !strings.HasPrefix(s, ".") {
				return version{}, false
			}
			s = s[1:]
		}
	}
	if s == "" {
		return v, true
	}
	if (s[0] != '-' && s[0] != '+') || len(s) == 1 {
		return version{}, false
	}
	for _, r := range s[1:] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return version{}, false
		}
	}
	return v, true
}

// compareVersions is the version side of the node check: every node whose kubelet version is
// known and parses, in a cluster whose Kubernetes version in CloudStack is known and parses,
// against that version. A node of a VM younger than the grace period is left alone, like every
// other node-side finding of a VM being created. So is a node whose VM's own version in
// CloudStack (4.21 on, MappedVM.KubernetesVersion) is the one its kubelet runs: CloudStack knows
// that node is on another version, as for a node excluded from the cluster's upgrades
// (manual_upgrade, KubernetesClusterUpgradeWorker.filterOutManualUpgradeNodesFromClusterUpgrade).
func compareVersions(c Cluster, named []*VM, nodes NodeList, young func(time.Time) bool) []Finding {
	want, ok := parseVersion(c.KubernetesVersion)
	if !ok || len(nodes.Versions) == 0 {
		return nil
	}
	type nodeVM struct {
		id       string
		created  time.Time
		recorded string // the VM's own Kubernetes version in CloudStack, if any
	}
	vms := make(map[string]nodeVM, len(c.Mapped)+len(named))
	for _, vm := range named {
		vms[strings.ToLower(vm.Name)] = nodeVM{id: vm.ID, created: vm.Created}
	}
	for _, m := range c.Mapped { // a mapped VM wins over an unmapped one of the same name
		if !m.Missing && !m.Removed {
			vms[strings.ToLower(m.Name)] = nodeVM{id: m.ID, created: m.Created, recorded: m.KubernetesVersion}
		}
	}
	var out []Finding
	for _, node := range nodes.Names {
		reported := nodes.Versions[node]
		got, ok := parseVersion(reported)
		if !ok || got == want {
			continue
		}
		vm, matched := vms[nodeName(node)]
		if matched && young(vm.created) {
			continue
		}
		if recorded, ok := parseVersion(vm.recorded); matched && ok && recorded == got {
			continue
		}
		out = append(out, Finding{Kind: KindNodeVersionMismatch, VMID: vm.id, VMName: node,
			Message: fmt.Sprintf("Kubernetes node %s of cluster %s runs kubelet %s but the cluster's Kubernetes version in CloudStack is %s",
				node, c.Name, reported, c.KubernetesVersion)})
	}
	return out
}
