package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
)

// TestInventoryOddClusterAnswers serves cluster answers whose fields have types, values and
// shapes no release sends on purpose: none fails the page, none invents a VM, and what can be
// read is read.
func TestInventoryOddClusterAnswers(t *testing.T) {
	const vms = `{"listvirtualmachinesresponse":{"count":2,"virtualmachine":[
		{"id":"vm-1","name":"prod-control-18fe6e5a4b0","state":"Running","account":"acme"},
		{"id":"vm-2","name":"prod-node-18fe6e5a5b0","state":"Running","account":"acme"}]}}`
	tests := []struct {
		name    string
		cluster string
		want    collector.Cluster
	}{
		{name: "numbers as strings, unknown fields, an object where a list was",
			cluster: `{"id":"c-1","name":"prod","state":"Running","account":"acme","controlnodes":"1","size":"1",
				"newfield":{"a":[1,2]},"etcdips":[],"virtualmachines":[
				{"id":"vm-1","name":"prod-control-18fe6e5a4b0","state":"Running","nic":{"odd":true},"details":["x"]},
				{"id":"vm-2","name":"prod-node-18fe6e5a5b0","state":"Running","nic":[{"ipaddress":7,"extradhcpoption":"x"}],
				 "isetcdnode":"false","isexternalnode":null}]}`,
			want: collector.Cluster{ID: "c-1", Name: "prod", State: "Running", Account: "acme", ClusterType: "CloudManaged",
				ControlNodes: 1, WorkerNodes: 1, Mapped: []collector.MappedVM{
					{ID: "vm-1", Name: "prod-control-18fe6e5a4b0", State: "Running"},
					{ID: "vm-2", Name: "prod-node-18fe6e5a5b0", State: "Running"}}}},
		{name: "null and unreadable entries in the map are left out",
			cluster: `{"id":"c-1","name":"prod","state":"Running","account":"acme","controlnodes":1,"size":1,
				"virtualmachines":[null,"vm-9",7,{"name":"no-id"},{"id":"vm-1","name":"prod-control-18fe6e5a4b0","state":"Running"}]}`,
			want: collector.Cluster{ID: "c-1", Name: "prod", State: "Running", Account: "acme", ClusterType: "CloudManaged",
				ControlNodes: 1, WorkerNodes: 1, Mapped: []collector.MappedVM{{ID: "vm-1", Name: "prod-control-18fe6e5a4b0", State: "Running"}}}},
		{name: "negative and huge counts read as 0",
			cluster: `{"id":"c-1","name":"prod","state":"Running","controlnodes":-3,"size":1e30,"virtualmachines":[]}`,
			want:    collector.Cluster{ID: "c-1", Name: "prod", State: "Running", ClusterType: "CloudManaged"}},
		{name: "4.14: uuids of VMs that are not listed are left out",
			cluster: `{"id":"c-1","name":"prod","state":"Running","account":"acme","masternodes":1,"size":1,
				"virtualmachineids":["vm-1","vm-404",null,3]}`,
			want: collector.Cluster{ID: "c-1", Name: "prod", State: "Running", Account: "acme", ClusterType: "CloudManaged",
				ControlNodes: 1, WorkerNodes: 1, Mapped: []collector.MappedVM{{ID: "vm-1", Name: "prod-control-18fe6e5a4b0", State: "Running"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, nil)
			s.Replay("listKubernetesClusters", []byte(`{"listkubernetesclustersresponse":{"count":1,"kubernetescluster":[`+tt.cluster+`]}}`))
			s.Replay("listVirtualMachines", []byte(vms))
			inv := mustInventory(t, newSource(t, s, api.Options{SSHPort: 22}))
			if len(inv.Clusters) != 1 {
				t.Fatalf("got %d clusters, want 1", len(inv.Clusters))
			}
			got := inv.Clusters[0]
			got.SSH = collector.SSHTarget{}
			if diff := cmp.Diff(tt.want, got, ignoreRules); diff != "" {
				t.Errorf("cluster (-want +got):\n%s", diff)
			}
		})
	}
}
