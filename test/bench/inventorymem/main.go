// Command inventorymem measures the Go heap the exporter needs to read the inventory of a large
// cloud: collector/inventory/api's Inventory against the benchmark's world, beside the floor, the
// same lists converted page by page into the collector's types by a minimal loop here. The two
// should stay close: an Inventory that keeps the SDK's structs of every page until the end (as
// before commit 4b9b966) peaks at about 250 MiB at 5,000 clusters instead of about 65 MiB. The
// fake CloudStack runs in the same process without latency; its own heap is measured first and
// subtracted. GOGC=5 approximates the live peak.
//
//	go run ./test/bench/inventorymem -clusters 5000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

func main() {
	clusters := flag.Int("clusters", 5000, "clusters of the world")
	strays := flag.Int("strays", 20000, "VMs of no cluster")
	flag.Parse()
	w, err := world.Build(world.Spec{Clusters: *clusters, StrayVMs: *strays, ProjectShare: 0.1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer w.Close()
	_, vms, _ := w.Counts.Totals()
	fmt.Printf("%d clusters, %d VMs; Go heap in use above the fake's own, sampled every 10 ms:\n", *clusters, vms)

	d := config.Defaults().CloudStack
	src, err := api.New(api.Options{API: cloudstackapi.Options{Endpoint: w.CS.Endpoint(), APIKey: w.CS.APIKey(), SecretKey: w.CS.SecretKey(), Timeout: d.Timeout},
		PageSize: d.PageSize, IncludeProjects: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var inv collector.Inventory
	peak, live := measure(func() {
		inv, err = src.Inventory(context.Background())
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("  collector/inventory/api Inventory:       peak %6.1f MiB, inventory kept afterwards %5.1f MiB\n", peak, live)
	runtime.KeepAlive(inv)
	inv = collector.Inventory{}

	var pageWise collector.Inventory
	peak, live = measure(func() { pageWise = listPageWise(w) })
	fmt.Printf("  the same lists converted page by page: peak %6.1f MiB, inventory kept afterwards %5.1f MiB (%d clusters, %d VMs)\n",
		peak, live, len(pageWise.Clusters), len(pageWise.VMs))
	runtime.KeepAlive(pageWise)
}

// measure runs fn and returns the peak heap in use above the starting point and what stays live
// after a collection, in MiB.
func measure(fn func()) (peakMiB, liveMiB float64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	runtime.GC()
	runtime.ReadMemStats(&m)
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	return mb(peak.Load() - min(base, peak.Load())), mb(m.HeapAlloc - min(base, m.HeapAlloc))
}

// listPageWise lists clusters, VMs and port-forwarding rules in both scopes and converts every page at once, so that no
// SDK struct outlives its page.
func listPageWise(w *world.World) collector.Inventory {
	size := config.Defaults().CloudStack.PageSize
	c := cs.NewAsyncClient(w.CS.Endpoint(), w.CS.APIKey(), w.CS.SecretKey(), false)
	var inv collector.Inventory
	for _, scope := range []string{"", "-1"} {
		for page := 1; ; page++ {
			p := c.VirtualMachine.NewListVirtualMachinesParams()
			p.SetListall(true)
			p.SetDetails([]string{"min"})
			p.SetPage(page)
			p.SetPagesize(size)
			if scope != "" {
				p.SetProjectid(scope)
			}
			r, err := c.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				panic(err)
			}
			for _, v := range r.VirtualMachines {
				inv.VMs = append(inv.VMs, collector.VM{ID: v.Id, Name: v.Name, State: v.State, Account: v.Account, DomainID: v.Domainid, ProjectID: v.Projectid})
			}
			if len(r.VirtualMachines) == 0 || page*size >= r.Count {
				break
			}
		}
		for page := 1; ; page++ {
			p := c.Kubernetes.NewListKubernetesClustersParams()
			p.SetListall(true)
			p.SetPage(page)
			p.SetPagesize(size)
			if scope != "" {
				p.SetProjectid(scope)
			}
			r, err := c.Kubernetes.ListKubernetesClusters(p)
			if err != nil {
				panic(err)
			}
			for _, k := range r.KubernetesClusters {
				cl := collector.Cluster{ID: k.Id, Name: k.Name, State: k.State, ClusterType: k.Clustertype, Account: k.Account,
					DomainID: k.Domainid, ProjectID: k.Projectid, ControlNodes: int(k.Controlnodes), WorkerNodes: int(k.Size)}
				for _, v := range k.Virtualmachines {
					cl.Mapped = append(cl.Mapped, collector.MappedVM{ID: v.Id, Name: v.Name, State: v.State})
				}
				inv.Clusters = append(inv.Clusters, cl)
			}
			if len(r.KubernetesClusters) == 0 || page*size >= r.Count {
				break
			}
		}
	}
	ports := make(map[string]int) // what the exporter keeps of the rules: the SSH port per IP and VM
	for _, scope := range []string{"", "-1"} {
		for page := 1; ; page++ {
			p := c.Firewall.NewListPortForwardingRulesParams()
			p.SetListall(true)
			p.SetPage(page)
			p.SetPagesize(size)
			if scope != "" {
				p.SetProjectid(scope)
			}
			r, err := c.Firewall.ListPortForwardingRules(p)
			if err != nil {
				panic(err)
			}
			for _, rule := range r.PortForwardingRules {
				if rule.Privateport == "22" {
					port, _ := strconv.Atoi(rule.Publicport)
					ports[rule.Ipaddressid+" "+rule.Virtualmachineid] = port
				}
			}
			if len(r.PortForwardingRules) == 0 || page*size >= r.Count {
				break
			}
		}
	}
	for i := range inv.Clusters {
		inv.Clusters[i].SSH = collector.SSHTarget{Host: "127.0.0.1", Port: ports[inv.Clusters[i].ID]} // keeps the map alive until here
	}
	return inv
}
