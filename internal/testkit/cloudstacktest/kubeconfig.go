package cloudstacktest

import (
	"runtime"
	"sync"
	"weak"
)

// kubeconfigs holds, per server, each cluster's kubernetes_cluster_details row "kubeConfigData":
// the kubeconfig getKubernetesClusterConfig returns. It lives beside the World rather than in it
// so that tests which never ask for kubeconfigs see no change; entries go when their server is
// garbage.
var kubeconfigs = struct {
	sync.Mutex
	m map[weak.Pointer[Server]]map[string]string
}{m: make(map[weak.Pointer[Server]]map[string]string)}

// SetKubeconfig stores the kubeconfig CloudStack keeps for the cluster with uuid clusterID; nil
// removes it, as for a cluster whose setup has not finished.
func (s *Server) SetKubeconfig(clusterID string, data []byte) {
	key := weak.Make(s)
	kubeconfigs.Lock()
	defer kubeconfigs.Unlock()
	byCluster, ok := kubeconfigs.m[key]
	if !ok {
		byCluster = make(map[string]string)
		kubeconfigs.m[key] = byCluster
		runtime.AddCleanup(s, func(k weak.Pointer[Server]) {
			kubeconfigs.Lock()
			defer kubeconfigs.Unlock()
			delete(kubeconfigs.m, k)
		}, key)
	}
	if data == nil {
		delete(byCluster, clusterID)
		return
	}
	byCluster[clusterID] = string(data)
}

// clusterConfigJSON is KubernetesClusterConfigResponse.
type clusterConfigJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	ConfigData string `json:"configdata"`
}

// getKubernetesClusterConfig answers as KubernetesClusterManagerImpl.getKubernetesClusterConfig
// at 4.17.0.0: 431 for an unknown cluster, 530 while the cluster has no kubeconfig detail, else
// {"clusterconfig": {"id", "name", "configdata"}}.
func (s *Server) getKubernetesClusterConfig(r *request) (any, *apiError) {
	id := r.params.Get("id")
	if id == "" {
		return nil, paramError("Unable to execute API command getkubernetesclusterconfig due to missing parameter id")
	}
	var cluster *Cluster
	for _, c := range s.world.Clusters {
		if c != nil && c.ID == id {
			cluster = c
		}
	}
	if cluster == nil {
		return nil, paramError("Invalid Kubernetes cluster ID specified")
	}
	kubeconfigs.Lock()
	data, ok := kubeconfigs.m[weak.Make(s)][id]
	kubeconfigs.Unlock()
	if !ok {
		text := "Config not found for Kubernetes cluster : " + cluster.Name
		if cluster.State == "Starting" {
			text = "Setup is in progress for Kubernetes cluster : " + cluster.Name + ", config not available at this moment"
		}
		return nil, &apiError{code: ErrInternalError, text: text}
	}
	return map[string]any{"clusterconfig": clusterConfigJSON{ID: cluster.ID, Name: cluster.Name, ConfigData: data}}, nil
}
