package collector

// Benchmarks of the drift engine and the metric collection at the scale benchmark's sizes:
//
//	go test -run '^$' -bench . -benchmem ./collector/
//
// Every world has N clusters of 3 VMs (1 control, 2 workers) in 100 accounts plus 20,000 VMs of
// no cluster; some drift is present: every 50th cluster misses a worker's map row (unmapped_vm,
// vm_map_incomplete explained), every 97th has a worker kubectl does not list (vm_not_a_node),
// and every 33rd control node could not be reached (node side not evaluated).

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const benchStrays = 20000

var benchSizes = []int{1000, 10000}

// benchWorld builds the inventory and node lists of a world of n clusters.
func benchWorld(n int) (Inventory, map[string]NodeList) {
	created := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	stamp := created.UnixMilli()
	inv := Inventory{Clusters: make([]Cluster, 0, n), VMs: make([]VM, 0, 3*n+benchStrays)}
	nodes := make(map[string]NodeList, n)
	for i := range n {
		name := fmt.Sprintf("cluster-%05d", i+1)
		account := fmt.Sprintf("account-%03d", i%100)
		c := Cluster{ID: fmt.Sprintf("be000001-0000-4000-8000-%012x", i+1), Name: name, State: "Running", ClusterType: "CloudManaged",
			ZoneName: "zone1", Account: account, DomainID: "d1", Domain: "ROOT", Created: created,
			ControlNodes: 1, WorkerNodes: 2, SSH: SSHTarget{Host: "192.0.2.1", Port: 2222}}
		var names []string
		for k, role := range []string{"control", "node", "node"} {
			v := VM{ID: fmt.Sprintf("be000002-0000-4000-8000-%012x", 3*i+k+1), Name: fmt.Sprintf("%s-%s-%x", name, role, stamp+int64(k)),
				State: "Running", Account: account, DomainID: "d1", Created: created}
			inv.VMs = append(inv.VMs, v)
			if k == 2 && i%50 == 49 {
				// the map row of the last worker is gone: unmapped_vm
			} else {
				c.Mapped = append(c.Mapped, MappedVM{ID: v.ID, Name: v.Name, State: v.State, Created: v.Created})
			}
			if !(k == 2 && i%97 == 96) {
				names = append(names, v.Name)
			}
		}
		inv.Clusters = append(inv.Clusters, c)
		if i%33 == 32 {
			nodes[c.ID] = NodeList{Err: "timeout"}
		} else {
			nodes[c.ID] = NodesRead(names, nil)
		}
	}
	for j := range benchStrays {
		inv.VMs = append(inv.VMs, VM{ID: fmt.Sprintf("be000003-0000-4000-8000-%012x", j+1), Name: fmt.Sprintf("app-%06d", j+1),
			State: "Running", Account: fmt.Sprintf("account-%03d", j%100), DomainID: "d1", Created: created})
	}
	return inv, nodes
}

var benchNow = time.Date(2026, 6, 5, 20, 0, 0, 0, time.UTC)

func benchName(n int) string { return "clusters=" + strconv.Itoa(n) }

// BenchmarkNewIndex files every VM of the world by name prefix (once per cycle).
func BenchmarkNewIndex(b *testing.B) {
	for _, n := range benchSizes {
		inv, _ := benchWorld(n)
		b.Run(benchName(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = NewIndex(inv)
			}
		})
	}
}

// BenchmarkCompare compares one cluster (op = one cluster) against a prebuilt index: the cost per
// cluster must not grow with the world.
func BenchmarkCompare(b *testing.B) {
	for _, n := range benchSizes {
		inv, nodes := benchWorld(n)
		idx := NewIndex(inv)
		b.Run(benchName(n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c := inv.Clusters[i%len(inv.Clusters)]
				_ = Compare(c, idx, nodes[c.ID], benchNow, 15*time.Minute)
				i++
			}
		})
	}
}

// BenchmarkEvaluate is a whole cycle's evaluation (op = every cluster of the world): index,
// comparisons, carried first-seen times, sorting.
func BenchmarkEvaluate(b *testing.B) {
	for _, n := range benchSizes {
		inv, nodes := benchWorld(n)
		prev := Evaluate(nil, inv, nodes, benchNow.Add(-5*time.Minute), 15*time.Minute)
		b.Run(benchName(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Evaluate(prev, inv, nodes, benchNow, 15*time.Minute)
			}
		})
	}
}

// benchSnapshot is the snapshot a cycle over the world publishes.
func benchSnapshot(n int) *Snapshot {
	inv, nodes := benchWorld(n)
	clusters := Evaluate(nil, inv, nodes, benchNow, 15*time.Minute)
	return &Snapshot{Start: benchNow.Add(-40 * time.Second), End: benchNow, Success: true, Enabled: true, LastSuccess: benchNow,
		Cycles: 12, Clusters: clusters, NodeListFailures: map[string]uint64{"timeout": uint64(n / 33)}}
}

// BenchmarkCollect gathers the check metrics of a snapshot through a registry (op = one scrape's
// collection, without encoding).
func BenchmarkCollect(b *testing.B) {
	for _, n := range benchSizes {
		snap := benchSnapshot(n)
		reg := prometheus.NewRegistry()
		reg.MustRegister(NewMetrics(func() *Snapshot { return snap }))
		series := 0
		if mfs, err := reg.Gather(); err == nil {
			for _, mf := range mfs {
				series += len(mf.GetMetric())
			}
		}
		b.Run(benchName(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reg.Gather(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(series), "series")
		})
	}
}
