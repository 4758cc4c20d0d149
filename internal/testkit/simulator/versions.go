package simulator

import (
	"maps"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// DefaultKubernetesVersion is the Kubernetes version of a simulated cluster unless its spec
// says otherwise; the fake Kubernetes API server's nodes report the same kubelet by default.
const DefaultKubernetesVersion = "1.28.4"

// sameVersion gives every node the same kubelet version.
func sameVersion(nodes []string, version string) map[string]string {
	out := make(map[string]string, len(nodes))
	for _, n := range nodes {
		out[n] = version
	}
	return out
}

// SetKubernetesVersion changes the cluster's Kubernetes version in CloudStack to the one with
// this semantic version (added when the cloud has none), as a finished upgradeKubernetesCluster
// records it, without touching the nodes: what an upgrade that CloudStack shows as done while
// the nodes still run the old kubelet looks like (apache/cloudstack#6514).
func (s *Simulator) SetKubernetesVersion(clusterID, semantic string) error {
	found := false
	s.CloudStack.Update(func(w *cloudstacktest.World) {
		if c := clusterByID(w, clusterID); c != nil {
			c.KubernetesVersionID = w.KubernetesVersionOf(semantic).ID
			found = true
		}
	})
	if !found {
		return ErrNoCluster
	}
	return nil
}

// KubeletVersions returns the kubelet version of each Kubernetes node of the cluster, by node
// name, as its control node reports them.
func (s *Simulator) KubeletVersions(clusterID string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.kubelets[clusterID])
}

// SetKubeletVersion makes the named nodes of the cluster (every node when none is named) report
// this kubelet version through kubectl on the control node, as upgrading or downgrading the
// kubelet on them does, and returns what gives them their versions back.
func (s *Simulator) SetKubeletVersion(clusterID, version string, nodes ...string) (restore func(), err error) {
	node := s.Node(clusterID)
	if node == nil {
		return nil, ErrNoCluster
	}
	s.mu.Lock()
	before := maps.Clone(s.kubelets[clusterID])
	after := maps.Clone(before)
	for n := range after {
		if len(nodes) == 0 || containsFold(nodes, n) {
			after[n] = version
		}
	}
	s.kubelets[clusterID] = after
	s.mu.Unlock()
	node.SetVersions(after)
	return func() {
		s.mu.Lock()
		s.kubelets[clusterID] = before
		s.mu.Unlock()
		node.SetVersions(before)
	}, nil
}

func containsFold(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}
