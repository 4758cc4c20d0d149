package exporter

// The kinds of what CKS's own next scale, upgrade or delete needs of a cluster's VMs, through the
// whole exporter and both inventory sources: each appears, is announced once, is kept while its
// side cannot be read (undone meanwhile, it is neither resolved nor announced again) and is
// resolved with the VM side's message once CloudStack is read again.

import (
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// cksOpsCase is one kind of drift: the cluster it needs, the simulator's helper that causes it
// and returns what undoes it, the finding as e.findings() shows it and a part of its message
// (given the VMs' uuids, which the fake hands out).
type cksOpsCase struct {
	name    string
	spec    simulator.ClusterSpec
	cause   func(s *simulator.Simulator, c simulator.Cluster) (undo func(), err error)
	finding func(c simulator.Cluster) string
	message func(c simulator.Cluster, uuid func(vm string) string) string
}

// renamedCKSVM is the name a tenant gave a VM that CKS deployed for its cluster: like no node's.
const renamedCKSVM = "tenant-renamed-worker"

var cksOpsCases = []cksOpsCase{
	{
		// apache/cloudstack#12229: a scale-down of an HA cluster (3 control nodes) from 3 workers
		// to 2 records size 2 and leaves the 3 workers in the map. Undone as the runbook says:
		// the cluster scaled to the workers its map holds.
		name: "vm_map_excess",
		spec: simulator.ClusterSpec{Name: "test", Controls: 3, Workers: 3},
		cause: func(s *simulator.Simulator, c simulator.Cluster) (func(), error) {
			return s.ScaleDownLeavingWorkers(c.ID, 2)
		},
		finding: func(c simulator.Cluster) string { return "test vm_map_excess " },
		message: func(c simulator.Cluster, uuid func(string) string) string {
			return "Kubernetes cluster test has 3 worker VMs in its VM map in CloudStack but its size is 2: 1 more than CKS counts"
		},
	},
	{
		// #12699: a worker stopped by hand or by HA, the cluster in Alert; Kubernetes still lists
		// its node (NotReady). Undone: the VM started again.
		name: "mapped_vm_not_running",
		spec: simulator.ClusterSpec{Name: "test", Workers: 2},
		cause: func(s *simulator.Simulator, c simulator.Cluster) (func(), error) {
			return s.StopVM(c.ID, c.VMs[1])
		},
		finding: func(c simulator.Cluster) string { return "test mapped_vm_not_running " + c.VMs[1] },
		message: func(c simulator.Cluster, uuid func(string) string) string {
			return "VM " + c.VMs[1] + " (" + uuid(c.VMs[1]) + ") of Kubernetes cluster test is Stopped in CloudStack, not Running"
		},
	},
	{
		// A VM CKS deployed for the cluster (vmtype cksnode), in no map and renamed by its tenant
		// so that no node's name matches it. Undone: the VM expunged.
		name: "unmapped_vm by vmtype",
		spec: simulator.ClusterSpec{Name: "test", Workers: 1},
		cause: func(s *simulator.Simulator, c simulator.Cluster) (func(), error) {
			return s.AddDeployedVM(c.ID, renamedCKSVM, time.Now().Add(-30*time.Minute).UTC().Truncate(time.Second))
		},
		finding: func(c simulator.Cluster) string { return "test unmapped_vm " + renamedCKSVM },
		message: func(c simulator.Cluster, uuid func(string) string) string {
			return "VM " + renamedCKSVM + " (" + uuid(renamedCKSVM) + ", Running) was deployed by CKS (vmtype cksnode) for the owner of Kubernetes cluster test"
		},
	},
}

// TestCKSOpsThroughTheAPI runs each kind with the API inventory source; the inventory fails with
// listVirtualMachines answering 429.
func TestCKSOpsThroughTheAPI(t *testing.T) {
	for _, tc := range cksOpsCases {
		t.Run(tc.name, func(t *testing.T) {
			e, cs := newEnv(t, tc.spec)
			e.writeConfig("  interval: 1h\n", "")
			e.start()
			e.cksOpsEpisode(tc, cs[0], nil,
				func() { e.sim.CloudStack.SetFault("listVirtualMachines", cloudstacktest.Fault{Status: 429}) },
				func() { e.sim.CloudStack.ClearFaults() })
		})
	}
}

// TestCKSOpsFromTheDatabase runs each kind with inventory.source database; the inventory fails
// with the exporter's database account dropped and its sessions ended.
func TestCKSOpsFromTheDatabase(t *testing.T) {
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	for _, tc := range cksOpsCases {
		t.Run(tc.name, func(t *testing.T) {
			e, cs := newEnv(t, tc.spec)
			d, grant, drop := e.startOnDatabase(db, "  interval: 1h\n")
			e.cksOpsEpisode(tc, cs[0], func() { e.reload(d) }, drop, grant)
		})
	}
}

// cksOpsEpisode walks one kind through its episode on a started exporter whose cycles run only
// when asked for: load, when not nil, hands the cloud's model to the inventory source (the
// database is loaded again); fail and recover make the inventory unreadable and readable.
func (e *env) cksOpsEpisode(tc cksOpsCase, c simulator.Cluster, load, fail, recover func()) {
	e.t.Helper()
	loaded := e.baseline(load)

	// Appears, announced once: one [WARN] annotation and one alert, however many cycles see it.
	undo, err := tc.cause(e.sim, c)
	if err != nil {
		e.t.Fatal(err)
	}
	loaded()
	want := []string{tc.finding(c)}
	e.checkNow(3)
	if f := e.findings(); !slices.Equal(f, want) {
		e.t.Fatalf("findings: %q, want %q", f, want)
	}
	msg := tc.message(c, func(name string) (id string) {
		e.sim.CloudStack.Read(func(w *cloudstacktest.World) { id = w.VMByName(name).ID })
		return id
	})
	written := e.writes()
	if count(written, "addAnnotation [WARN] "+msg) != 1 || count(written, "generateAlert "+msg, "This is only reported, nothing was changed.") != 1 || len(written) != 2 {
		e.t.Fatalf("writes: %q, want one [WARN] annotation and one alert with %q", written, msg)
	}

	// The inventory cannot be read while the drift is undone: the cycles fail, the finding is
	// kept and nothing is announced, neither a resolution nor the finding again.
	fail()
	undo()
	loaded()
	e.checkNow(2)
	if m := e.metrics(); m["cks_drift_up"] != 0 || m["cks_drift_cycle_failures_total"] < 2 {
		e.t.Fatalf("the inventory unreadable: cks_drift_up %v, %v failed cycles", m["cks_drift_up"], m["cks_drift_cycle_failures_total"])
	}
	e.keptThenResolved(want, written, recover, "The VM map of Kubernetes cluster test "+vmSideAgain)
}

// baseline runs a cycle and checks that it finds nothing; it returns what hands the cloud's model
// to the inventory source: load, or nothing when load is nil (the API reads the fake as it is).
func (e *env) baseline(load func()) (loaded func()) {
	e.t.Helper()
	e.checkNow(1)
	if f := e.findings(); len(f) != 0 {
		e.t.Fatalf("baseline findings: %q", f)
	}
	return func() {
		if load != nil {
			load()
		}
	}
}

// keptThenResolved checks that a finding whose side could not be read is kept as want and that
// nothing was written since written; then, once recover makes the side readable and two cycles
// ran, that the finding is gone with one [INFO] annotation with resolution as the only write, and
// the alert archived.
func (e *env) keptThenResolved(want, written []string, recover func(), resolution string) {
	e.t.Helper()
	if f := e.findings(); !slices.Equal(f, want) {
		e.t.Fatalf("findings while the side cannot be read: %q, want them kept: %q", f, want)
	}
	if w := e.writes(); !slices.Equal(w, written) {
		e.t.Fatalf("announced while the side could not be read: %q", w[len(written):])
	}
	recover()
	e.checkNow(2)
	if f := e.findings(); len(f) != 0 {
		e.t.Fatalf("findings once undone and read again: %q", f)
	}
	after := e.writes()[len(written):]
	if count(after, "addAnnotation [INFO] "+resolution) != 1 || count(after, "addAnnotation") != 1 || count(after, "generateAlert") != 0 {
		e.t.Fatalf("writes once resolved: %q", after)
	}
	e.oneEpisode(resolution)
}

// TestDeployedUnmappedByRelease: the unmapped CKS VM of cksOpsCases is found where CloudStack
// says which VMs CKS deployed, through the API from 4.20 (listVirtualMachines' vmtype) and from
// the database from 4.16 (user_vm.user_vm_type), and not on the releases before, where only the
// node naming finds unmapped VMs. One cycle each.
func TestDeployedUnmappedByRelease(t *testing.T) {
	tc := cksOpsCases[slices.IndexFunc(cksOpsCases, func(c cksOpsCase) bool { return c.name == "unmapped_vm by vmtype" })]
	db := mariadbtest.Start(t) // skips without MariaDB (fails in CI)
	for _, r := range []struct {
		source, release string
		found           bool
	}{
		{"api", cloudstacktest.Release418, false},
		{"api", cloudstacktest.Release420, true},
		{"api", cloudstacktest.Release422, true},
		{"database", cloudstacktest.Release414, false},
		{"database", cloudstacktest.Release416, true},
		{"database", cloudstacktest.Release420, true},
		{"database", cloudstacktest.Release422, true},
	} {
		t.Run(r.source+" "+r.release, func(t *testing.T) {
			e, _ := newEnv(t)
			e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Release = r.release })
			c, err := e.sim.AddCluster(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.cause(e.sim, c); err != nil {
				t.Fatal(err)
			}
			if r.source == "database" {
				d, _, _ := e.startOnDatabase(db, "  interval: 1h\n")
				if want := mariadbtest.SchemaOf(r.release); d.Version != want {
					t.Fatalf("schema %s, want %s", d.Version, want)
				}
			} else {
				e.writeConfig("  interval: 1h\n", "")
				e.start()
			}
			e.checkNow(1)
			var want []string
			if r.found {
				want = []string{tc.finding(c)}
			}
			if f := e.findings(); !slices.Equal(f, want) || e.metrics()["cks_drift_up"] != 1 {
				t.Fatalf("findings: %q, want %q (cks_drift_up %v)", f, want, e.metrics()["cks_drift_up"])
			}
		})
	}
}
