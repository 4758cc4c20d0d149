package cloudstack_test

import (
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier/cloudstack"
)

// created is when the tests' clusters and alerts were made, as CloudStack writes it.
var created = time.Date(2024, 6, 5, 7, 51, 22, 0, time.UTC)

const zoneID = "20000000-0000-4000-8000-000000000001"

// newWriter starts a fake CloudStack holding the world build makes (build may be nil) and returns
// it with a writer for it; the fake closes with the test.
func newWriter(t *testing.T, build func(w *cloudstacktest.World)) (*cloudstacktest.Server, *cloudstack.Writer) {
	t.Helper()
	s := cloudstacktest.NewServer()
	t.Cleanup(s.Close)
	if build != nil {
		s.Update(build)
	}
	d := config.Defaults().CloudStack
	api, err := cloudstackapi.New(cloudstackapi.Options{Endpoint: s.Endpoint(), APIKey: s.APIKey(), SecretKey: s.SecretKey(), Timeout: d.Timeout})
	if err != nil {
		t.Fatalf("cloudstackapi.New: %v", err)
	}
	return s, cloudstack.New(api, d.PageSize)
}

// runningCluster returns a Running cluster row named name in the tests' zone.
func runningCluster(name string) cloudstacktest.Cluster {
	return cloudstacktest.Cluster{Name: name, State: "Running", ZoneID: zoneID, ZoneName: "zone1",
		Account: "acme", Domain: "ROOT", NetworkID: "net-" + name, Created: created}
}
