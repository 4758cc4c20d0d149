package config

import "time"

// NodeSource names where a cluster's Kubernetes nodes are listed from.
type NodeSource string

const (
	// NodeSourceSSH runs kubectl on the cluster's first control node over SSH.
	NodeSourceSSH NodeSource = "ssh"
	// NodeSourceKubernetesAPI lists the nodes through the cluster's Kubernetes API, with the
	// kubeconfig from kubernetes_api.kubeconfig_dir or from CloudStack's
	// getKubernetesClusterConfig; no SSH key is needed.
	NodeSourceKubernetesAPI NodeSource = "kubernetes_api"
)

// KubernetesAPI says how the Kubernetes API of each cluster is reached with check.node_source
// kubernetes_api. KubeconfigDir, when set, holds one "<cluster uuid>.conf" kubeconfig per
// cluster (for instance a service account that may only list nodes); a cluster without a file
// there uses the kubeconfig CloudStack returns for it.
type KubernetesAPI struct {
	KubeconfigDir string        `yaml:"kubeconfig_dir"` // Optional: <cluster uuid>.conf files (e.g. read-only service accounts) used instead of the kubeconfig getKubernetesClusterConfig returns.
	Timeout       time.Duration `yaml:"timeout"`        // Bounds the node listing of one cluster.
}

// nodeSource checks check.node_source and the kubernetes_api section.
func (v *validation) nodeSource(c *Config) {
	switch c.Check.NodeSource {
	case NodeSourceSSH, NodeSourceKubernetesAPI:
	default:
		v.keyf("check.node_source", "must be ssh or kubernetes_api, not %q", c.Check.NodeSource)
	}
	v.positive("kubernetes_api.timeout", c.KubernetesAPI.Timeout)
}
