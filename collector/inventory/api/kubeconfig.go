package api

import (
	"context"
	"errors"
	"fmt"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// KubernetesClusterConfig returns the kubeconfig CloudStack keeps for the cluster
// (getKubernetesClusterConfig): its API server, CA and admin credential. The bytes are a
// credential; errors never carry them. CloudStack refuses with 530 while the cluster has none
// yet ("Config not found", KubernetesClusterManagerImpl.getKubernetesClusterConfig at 4.17.0.0).
func (s *Source) KubernetesClusterConfig(ctx context.Context, clusterID string) ([]byte, error) {
	return Kubeconfigs{API: s.api}.KubernetesClusterConfig(ctx, clusterID)
}

// Kubeconfigs asks CloudStack for clusters' kubeconfigs on a shared connection: the Kubernetes API
// node source needs them whichever source reads the inventory.
type Kubeconfigs struct{ API *cloudstackapi.Client }

// KubernetesClusterConfig is Source.KubernetesClusterConfig.
func (k Kubeconfigs) KubernetesClusterConfig(ctx context.Context, clusterID string) ([]byte, error) {
	c := k.API.SDK(ctx)
	p := c.Kubernetes.NewGetKubernetesClusterConfigParams()
	p.SetId(clusterID)
	var r *cs.GetKubernetesClusterConfigResponse
	if err := cloudstackapi.Guard(func() (err error) { r, err = c.Kubernetes.GetKubernetesClusterConfig(p); return err }); err != nil {
		return nil, fmt.Errorf("getKubernetesClusterConfig for cluster %s: %w", clusterID, cloudstackapi.Redact(err))
	}
	if r == nil || r.Configdata == "" {
		return nil, errors.New("getKubernetesClusterConfig for cluster " + clusterID + " returned no kubeconfig")
	}
	return []byte(r.Configdata), nil
}
