package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// buildWorld creates twelve clusters: three healthy (one of them created before 4.16, with -master
// names, reached as the user core that CloudStack recorded for it), one with a missing map row
// (unmapped_vm), one with a running VM that is not a Kubernetes node (vm_not_a_node), one left in
// Scaling by a scale asked for three hours ago (skipped, and stuck_in_operation), one that
// CloudStack shows upgraded to 1.24.0 while its nodes still run kubelet v1.23.3
// (node_version_mismatch, versionSkew), one with three control nodes scaled down from 3 workers to
// 2 that kept all 3 in its map (vm_map_excess, apache/cloudstack#12229), one with a stopped
// worker, in Alert (mapped_vm_not_running), and one of project green beside a VM that CKS deployed
// for the project and its tenant renamed (unmapped_vm, by its vmtype cksnode), one with every
// network rule CKS creates but a worker's SSH port-forwarding rule (network_rule_missing), and one
// whose service offering was deleted (offering_missing). With apis, every cluster also gets a
// Kubernetes API server.
func buildWorld(sim *simulator.Simulator, apis *kubeAPIs) error {
	specs := []simulator.ClusterSpec{
		{Name: "prod-east", Controls: 3, Workers: 2},
		{Name: "analytics", Workers: 2},
		{Name: "ci-runners", Workers: 3},
		{Name: "staging", State: "Scaling"},
		{Name: "Team Blue", ProjectID: "a0000000-0000-4000-8000-0000000000b1", Project: "blue", Account: "blue"},
		{Name: "legacy", Pre416: true, LoginUser: "core"},
		{Name: "billing", Workers: 1, KubernetesVersion: "1.23.3"},
		{Name: "search", Controls: 3, Workers: 3},
		{Name: "web", Workers: 2},
		{Name: "Team Green", ProjectID: "a0000000-0000-4000-8000-0000000000c1", Project: "green", Account: "green"},
		{Name: "payments", Workers: 2, NetworkRules: true},
		{Name: "reports", Workers: 1},
	}
	clusters := make(map[string]simulator.Cluster)
	for _, spec := range specs {
		c, err := sim.AddCluster(spec)
		if err != nil {
			return err
		}
		clusters[spec.Name] = c
		if apis != nil {
			if err := apis.add(sim, c); err != nil {
				return err
			}
		}
	}
	a := clusters["analytics"]
	if _, err := sim.DeleteMapRow(a.ID, a.VMs[len(a.VMs)-1]); err != nil {
		return err
	}
	// A scale that never finished: CloudStack's event says it was asked for three hours ago.
	if err := sim.StartOperation(clusters["staging"].ID, "Scaling", time.Now().Add(-3*time.Hour)); err != nil {
		return err
	}
	ci := clusters["ci-runners"]
	if _, err := sim.StopKubelet(ci.ID, ci.VMs[1]); err != nil {
		return err
	}
	if apis != nil {
		apis.stopKubelet(ci.ID, ci.VMs[1])
	}
	if err := versionSkew(sim, clusters["billing"]); err != nil {
		return err
	}
	return cksOperations(sim, clusters)
}

// cksOperations leaves the drift that makes CKS's own next scale or upgrade go wrong: search's
// scale-down kept a worker (vm_map_excess), a worker of web is stopped (mapped_vm_not_running),
// a VM CKS deployed for project green was renamed by its tenant, so that only its vmtype says it
// is a CKS node (unmapped_vm), the tenant of payments deleted the port-forwarding rule of a
// worker's SSH port (network_rule_missing), and the service offering of reports was deleted
// (offering_missing).
func cksOperations(sim *simulator.Simulator, clusters map[string]simulator.Cluster) error {
	if _, err := sim.ScaleDownLeavingWorkers(clusters["search"].ID, 2); err != nil {
		return err
	}
	web := clusters["web"]
	if _, err := sim.StopVM(web.ID, web.VMs[len(web.VMs)-1]); err != nil {
		return err
	}
	if _, err := sim.AddDeployedVM(clusters["Team Green"].ID, "green-gpu-worker", time.Now().Add(-30*time.Minute)); err != nil {
		return err
	}
	payments := clusters["payments"]
	if _, err := sim.RemoveSSHRule(payments.ID, payments.VMs[len(payments.VMs)-1]); err != nil {
		return err
	}
	_, err := sim.RemoveServiceOffering(clusters["reports"].ID)
	return err
}

// versionSkew records in CloudStack the upgrade of c to 1.24.0 and leaves its nodes on the
// kubelet of its spec, as apache/cloudstack#6514 reports of 4.17 (UI 1.24.0, every node v1.23.3).
func versionSkew(sim *simulator.Simulator, c simulator.Cluster) error {
	return sim.SetKubernetesVersion(c.ID, "1.24.0")
}

// watchWrites prints every write the simulated CloudStack receives: the notifier's annotations,
// alerts and archiving.
func watchWrites(ctx context.Context, sim *simulator.Simulator) {
	seen := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		calls := sim.CloudStack.Calls()
		for _, c := range calls[seen:] {
			switch c.Command {
			case "addAnnotation":
				fmt.Printf("CloudStack received addAnnotation on cluster %s: %s\n", c.Params.Get("entityid"), c.Params.Get("annotation"))
			case "generateAlert":
				fmt.Printf("CloudStack received generateAlert type %s, zone %q: %s\n", c.Params.Get("type"), c.Params.Get("zoneid"), c.Params.Get("description"))
			case "archiveAlerts":
				fmt.Printf("CloudStack received archiveAlerts type %s\n", c.Params.Get("type"))
			}
		}
		seen = len(calls)
	}
}
