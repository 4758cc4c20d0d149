package collector

import (
	"regexp"
	"strings"
)

// CKS names a cluster's node VMs after the cluster. These rules follow
// KubernetesClusterResourceModifierActionWorker in the CloudStack sources: the current one
// (lower-cased, cut to 43 characters, "k8s-" + the name's [a-z0-9-] characters when the name is not
// a valid host name label) and the older one (case kept, [a-zA-Z0-9-] kept, cut to 40), so that
// clusters created by older releases are recognised as well.
const (
	maxNodePrefix       = 43
	maxLegacyNodePrefix = 40
	maxEtcdPrefix       = 40
)

var (
	notLabelLower = regexp.MustCompile(`[^a-z0-9-]`)
	notLabelAny   = regexp.MustCompile(`[^a-zA-Z0-9-]`)
	hostLabel     = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

	// nodeSuffix is what follows the prefix of a control or worker VM: "-control-<hex>",
	// "-node-<hex>" since 4.16.0.0; "-master", "-master-<i>" and "-node-<i>" before
	// (KubernetesClusterStartWorker and KubernetesClusterResourceModifierActionWorker at 4.14.0.0
	// and 4.15.0.0), still carried by clusters created then; "-<n>" appended when the name was
	// taken (getKubernetesClusterNodeAvailableName).
	// A plain "-control" was never released.
	nodeSuffix = regexp.MustCompile(`^-(control-[0-9a-f]+|master(-[0-9]+)?|node-[0-9a-f]+)(-[0-9]+)?$`)
	// etcdSuffix is what follows "<name>-etcd" (cut to 40) in an etcd VM's name.
	etcdSuffix = regexp.MustCompile(`-[0-9]+-[0-9a-f]+$`)
)

// validHostLabel mirrors CloudStack's NetUtils.verifyDomainNameLabel(name, true): 1 to 63
// characters of [a-z0-9-], not starting with a digit or a hyphen, not ending with a hyphen.
func validHostLabel(s string) bool {
	return len(s) >= 1 && len(s) <= 63 && hostLabel.MatchString(s) && !strings.HasSuffix(s, "-")
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// nodePrefixes returns the lower-cased prefixes that the cluster's control and worker VMs may
// carry: the current rule's and the older rule's (often the same).
func nodePrefixes(c Cluster) []string {
	lower := strings.ToLower(c.Name)
	current := lower
	if !validHostLabel(lower) {
		current = notLabelLower.ReplaceAllString(lower, "")
		if current == "" {
			current = c.ID
		}
		current = "k8s-" + current
	}
	current = cut(current, maxNodePrefix)

	legacy := c.Name
	if !validHostLabel(strings.ToLower(legacy)) {
		legacy = notLabelAny.ReplaceAllString(legacy, "")
		if legacy == "" {
			legacy = c.ID
		}
		legacy = "k8s-" + legacy
	}
	legacy = strings.ToLower(cut(legacy, maxLegacyNodePrefix))
	if legacy == current {
		return []string{current}
	}
	return []string{current, legacy}
}

// etcdPrefix returns the lower-cased "<name>-etcd" prefix of the cluster's etcd VMs.
func etcdPrefix(c Cluster) string {
	p := c.Name
	if !validHostLabel(strings.ToLower(p)) {
		p = notLabelAny.ReplaceAllString(p, "")
		if p == "" {
			p = c.ID
		}
	}
	return strings.ToLower(cut(p+"-etcd", maxEtcdPrefix))
}

// nodeNamePrefixes returns every prefix under which a (lower-cased) VM name could be a control
// or worker node: one per "-control"/"-master"/"-node" in the name that a valid suffix follows.
func nodeNamePrefixes(name string) []string {
	var out []string
	for i := 0; i < len(name); i++ {
		if name[i] != '-' || i == 0 {
			continue
		}
		rest := name[i:]
		if isNodeRole(rest) && nodeSuffix.MatchString(rest) {
			out = append(out, name[:i])
		}
	}
	return out
}

func isNodeRole(rest string) bool {
	return strings.HasPrefix(rest, "-control") || strings.HasPrefix(rest, "-master") || strings.HasPrefix(rest, "-node")
}

// isControlName reports whether a VM name reads as a control node's of any release:
// "-control-<hex>" since 4.16.0.0, "-master" and "-master-<i>" before.
func isControlName(vmName string) bool {
	name := strings.ToLower(vmName)
	for i := 1; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		rest := name[i:]
		if (strings.HasPrefix(rest, "-control") || strings.HasPrefix(rest, "-master")) && nodeSuffix.MatchString(rest) {
			return true
		}
	}
	return false
}

// etcdNamePrefix returns the prefix of a (lower-cased) VM name that looks like an etcd node's.
func etcdNamePrefix(name string) (string, bool) {
	loc := etcdSuffix.FindStringIndex(name)
	if loc == nil || loc[0] == 0 {
		return "", false
	}
	return name[:loc[0]], true
}

// IsEtcdName reports whether a VM name follows the cluster's etcd naming.
func IsEtcdName(c Cluster, vmName string) bool {
	p, ok := etcdNamePrefix(strings.ToLower(vmName))
	return ok && p == etcdPrefix(c)
}

// nodeName returns the name a Kubernetes node is matched by: lower-cased, and for an FQDN only its
// first label.
func nodeName(node string) string {
	n := strings.ToLower(strings.TrimSpace(node))
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	return n
}
