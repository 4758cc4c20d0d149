package exporter

// What one cluster's node list costs with each source, against loopback fakes (no network
// latency: the numbers are the exporter's own work plus the fakes'):
//
//	go test -run '^$' -bench NodeSource -benchmem ./exporter/

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

func BenchmarkNodeSource(b *testing.B) {
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	c, err := sim.AddCluster(simulator.ClusterSpec{Name: "bench", Controls: 1, Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	startKubeAPI(b, sim, c)
	path, err := sim.WriteFiles(b.TempDir(), "", "")
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := api.New(api.Options{API: cloudstackapi.Options{Endpoint: cfg.CloudStack.Endpoint, APIKey: string(cfg.CloudStack.APIKey),
		SecretKey: string(cfg.CloudStack.SecretKey), Timeout: cfg.CloudStack.Timeout}, PageSize: cfg.CloudStack.PageSize, IncludeProjects: true})
	if err != nil {
		b.Fatal(err)
	}
	inv, err := cs.Inventory(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var cluster collector.Cluster
	for _, ic := range inv.Clusters {
		if ic.ID == c.ID {
			cluster = ic
		}
	}
	pins, metrics := &ssh.MemoryPins{}, ssh.NewMetrics()
	for _, tc := range []struct {
		name   string
		source config.NodeSource
		fresh  bool // a new lister per list: the first cycle after a start or a reload
	}{
		{"ssh", config.NodeSourceSSH, false},
		{"kubernetes_api_first", config.NodeSourceKubernetesAPI, true},
		{"kubernetes_api_cached", config.NodeSourceKubernetesAPI, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg.Check.NodeSource = tc.source
			lister, err := nodeLister(cfg, cs, pins, metrics, slog.New(slog.DiscardHandler))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := lister.ListNodes(context.Background(), cluster); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if tc.fresh {
					b.StopTimer()
					lister, _ = nodeLister(cfg, cs, pins, metrics, slog.New(slog.DiscardHandler))
					b.StartTimer()
				}
				nodes, err := lister.ListNodes(context.Background(), cluster)
				if err != nil || len(nodes) != 3 {
					b.Fatalf("nodes %v, %v", nodes, err)
				}
			}
		})
	}
}
