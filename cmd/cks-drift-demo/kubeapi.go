package main

import (
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// kubeAPIs are the clusters' fake Kubernetes API servers when the demo runs with
// --node-source=kubernetes_api: each lists the same nodes as the cluster's simulated control
// node, and the simulated CloudStack hands out its kubeconfig (getKubernetesClusterConfig).
type kubeAPIs struct {
	servers  map[string]*kubetest.Server // by cluster uuid
	nodes    map[string][]string
	kubelets map[string]map[string]string // kubelet version by node, by cluster uuid
}

func newKubeAPIs() *kubeAPIs {
	return &kubeAPIs{servers: make(map[string]*kubetest.Server), nodes: make(map[string][]string),
		kubelets: make(map[string]map[string]string)}
}

// add starts c's API server with every node VM but etcd ones as a node, each reporting the
// kubelet the simulated control node reports for it (the cluster's Kubernetes version).
func (k *kubeAPIs) add(sim *simulator.Simulator, c simulator.Cluster) error {
	srv, err := kubetest.NewServer()
	if err != nil {
		return err
	}
	k.servers[c.ID] = srv
	for _, vm := range c.VMs {
		if !strings.Contains(vm, "-etcd") {
			k.nodes[c.ID] = append(k.nodes[c.ID], strings.ToLower(vm))
		}
	}
	k.kubelets[c.ID] = sim.KubeletVersions(c.ID)
	k.set(c.ID)
	conf, err := srv.Kubeconfig(srv.NewToken(true))
	if err != nil {
		return err
	}
	sim.CloudStack.SetKubeconfig(c.ID, conf)
	return nil
}

// stopKubelet drops the VM's node from the cluster's API, as simulator.StopKubelet does for SSH.
func (k *kubeAPIs) stopKubelet(clusterID, vm string) {
	var keep []string
	for _, n := range k.nodes[clusterID] {
		if n != strings.ToLower(vm) {
			keep = append(keep, n)
		}
	}
	k.nodes[clusterID] = keep
	k.set(clusterID)
}

func (k *kubeAPIs) set(clusterID string) {
	var nodes []kubetest.Node
	for _, n := range k.nodes[clusterID] {
		nodes = append(nodes, kubetest.Node{Name: n, KubeletVersion: k.kubelets[clusterID][n]})
	}
	k.servers[clusterID].SetNodes(nodes...)
}

// Close stops every API server.
func (k *kubeAPIs) Close() {
	for _, s := range k.servers {
		s.Close()
	}
}
