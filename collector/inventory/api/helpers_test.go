package api_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// created is the creation time of every cluster and VM the tests build, as CloudStack writes it
// with second resolution.
var created = time.Date(2024, 6, 5, 7, 51, 22, 0, time.UTC)

const (
	domainID  = "d0000000-0000-4000-8000-000000000001"
	zoneID    = "20000000-0000-4000-8000-000000000001"
	projectID = "30000000-0000-4000-8000-000000000001"
)

// startFake starts a fake CloudStack holding the world build makes; it closes with the test.
func startFake(t *testing.T, build func(w *cloudstacktest.World)) *cloudstacktest.Server {
	t.Helper()
	s := cloudstacktest.NewServer()
	t.Cleanup(s.Close)
	if build != nil {
		s.Update(build)
	}
	return s
}

// newSource returns a Source for the fake; the endpoint and keys of o default to the fake's, its
// page size and timeout to the configuration's.
func newSource(t *testing.T, s *cloudstacktest.Server, o api.Options) *api.Source {
	t.Helper()
	o = withConfigDefaults(o)
	if o.API.Endpoint == "" {
		o.API.Endpoint = s.Endpoint()
	}
	if o.API.APIKey == "" {
		o.API.APIKey = s.APIKey()
	}
	if o.API.SecretKey == "" {
		o.API.SecretKey = s.SecretKey()
	}
	src, err := api.New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return src
}

// withConfigDefaults fills the page size and the timeout left at zero in o with the
// configuration's defaults, which New does not apply.
func withConfigDefaults(o api.Options) api.Options {
	d := config.Defaults().CloudStack
	if o.PageSize == 0 {
		o.PageSize = d.PageSize
	}
	if o.API.Timeout == 0 {
		o.API.Timeout = d.Timeout
	}
	return o
}

// mustInventory reads the inventory and fails the test on an error.
func mustInventory(t *testing.T, src *api.Source) collector.Inventory {
	t.Helper()
	inv, err := src.Inventory(context.Background())
	if err != nil {
		t.Fatalf("Inventory: %v", err)
	}
	return inv
}

// cks is what addCKS builds: the stored cluster and its node VMs, control nodes first.
type cks struct {
	cluster *cloudstacktest.Cluster
	vms     []*cloudstacktest.VM
}

// addCKS adds c to w with node VMs named and mapped as CKS does: controls, then workers, then
// etcd nodes, in c's account or project and on its network, each with its own address.
func addCKS(w *cloudstacktest.World, c cloudstacktest.Cluster, controls, workers, etcd int) cks {
	stamp := c.Created.UnixMilli()
	var names []string
	for i := range controls {
		names = append(names, fmt.Sprintf("%s-control-%x", c.Name, stamp+int64(i)))
	}
	for i := range workers {
		names = append(names, fmt.Sprintf("%s-node-%x", c.Name, stamp+int64(100+i)))
	}
	for i := range etcd {
		names = append(names, fmt.Sprintf("%s-etcd-%d-%x", c.Name, i+1, stamp+int64(200+i)))
	}
	var out cks
	for _, name := range names {
		vm := w.AddVM(cloudstacktest.VM{Name: name, State: "Running", Account: c.Account, DomainID: c.DomainID,
			Domain: c.Domain, ProjectID: c.ProjectID, Project: c.Project, ZoneID: c.ZoneID, ZoneName: c.ZoneName,
			NetworkID: c.NetworkID, IPAddress: fmt.Sprintf("10.9.%d.%d", len(w.Clusters), len(out.vms)+10),
			Created: c.Created})
		c.VMMap = append(c.VMMap, vm.InternalID)
		out.vms = append(out.vms, vm)
	}
	c.ControlNodes, c.Size, c.EtcdNodes = int64(controls), int64(workers), int64(etcd)
	out.cluster = w.AddCluster(c)
	return out
}

// accountCluster returns a Running cluster row of account acme named name.
func accountCluster(name string) cloudstacktest.Cluster {
	return cloudstacktest.Cluster{Name: name, State: "Running", ZoneID: zoneID, ZoneName: "zone1",
		Account: "acme", DomainID: domainID, Domain: "ROOT", NetworkID: "net-" + name, Created: created}
}

// listCalls returns the parameters of every logged call of command.
func listCalls(s *cloudstacktest.Server, command string) []url.Values {
	var out []url.Values
	for _, c := range s.Calls() {
		if c.Command == command {
			out = append(out, c.Params)
		}
	}
	return out
}
