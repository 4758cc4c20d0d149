package exporter

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// tick ages the faults, injects new ones and causes or undoes drift, all at random.
func (r *soakRun) tick() {
	cs := r.e.sim.CloudStack
	if r.api != nil {
		if r.api.left--; r.api.left <= 0 {
			cs.SetFault(r.api.command, cloudstacktest.Fault{}) // a zero fault lets calls through
			r.api = nil
		}
	}
	if r.notify != nil {
		if r.notify.left--; r.notify.left <= 0 {
			cs.SetFault(r.notify.command, cloudstacktest.Fault{})
			r.notify = nil
		}
	}
	for i, f := range r.ssh {
		if f.left--; f.left <= 0 {
			r.e.sim.Node(r.cs[i].ID).SetMode(sshtest.Normal)
			delete(r.ssh, i)
		}
	}

	if r.api == nil && r.rng.Float64() < 0.04 {
		command := []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"}[r.rng.Intn(3)]
		kinds := []struct {
			kind  string
			fault cloudstacktest.Fault
			max   int
		}{
			{"API 530", cloudstacktest.Fault{Status: 530}, 10},
			{"API 502 HTML page", cloudstacktest.Fault{Status: 502, RawBody: "<html><h1>502 Bad Gateway</h1></html>"}, 10},
			{"API garbage with 200", cloudstacktest.Fault{RawBody: "<html>maintenance</html>"}, 10},
			{"API 429 with Retry-After", cloudstacktest.Fault{Status: 429, RetryAfter: "1"}, 10},
			{"API 429 without Retry-After", cloudstacktest.Fault{Status: 429}, 10},
			{"API slower than the timeout", cloudstacktest.Fault{Delay: 3 * time.Second}, 2},
			{"API pages not adding up to count", cloudstacktest.Fault{CountDelta: 2}, 10},
		}
		k := kinds[r.rng.Intn(len(kinds))]
		cs.SetFault(command, k.fault)
		r.api = &soakFault{kind: k.kind, command: command, left: 1 + r.rng.Intn(k.max)}
		r.injected[k.kind]++
	}
	if r.notify == nil && r.rng.Float64() < 0.06 {
		kinds := []struct{ kind, command string }{
			{"generateAlert 530", "generateAlert"},
			{"generateAlert 429", "generateAlert"},
			{"addAnnotation 530", "addAnnotation"},
			{"archiveAlerts 530", "archiveAlerts"},
			{"listAlerts 530 (look-ups, verification)", "listAlerts"},
			{"listAnnotations 530 (look-ups)", "listAnnotations"},
			{"queryAsyncJobResult 530 (alert stored, outcome unknown)", "queryAsyncJobResult"},
		}
		k := kinds[r.rng.Intn(len(kinds))]
		status := 530
		if strings.Contains(k.kind, "429") {
			status = 429
		}
		cs.SetFault(k.command, cloudstacktest.Fault{Status: status})
		r.notify = &soakFault{kind: k.kind, command: k.command, left: 1 + r.rng.Intn(15)}
		r.injected[k.kind]++
	}
	if i := r.rng.Intn(len(r.cs)); r.ssh[i] == nil && r.rng.Float64() < 0.05 {
		modes := []sshtest.Mode{sshtest.Refuse, sshtest.Garbage, sshtest.FailCommand, sshtest.HangHandshake,
			sshtest.HangCommand, sshtest.Refuse, sshtest.Garbage, sshtest.Huge}
		mode := modes[r.rng.Intn(len(modes))]
		r.e.sim.Node(r.cs[i].ID).SetMode(mode)
		r.ssh[i] = &soakFault{kind: "SSH " + mode.String(), left: 1 + r.rng.Intn(10)}
		r.injected["SSH "+mode.String()]++
	}

	active := 0
	for _, d := range r.drifts {
		if !d.undone {
			active++
		}
	}
	if active < 12 && r.rng.Float64() < 0.12 {
		r.cause(r.rng.Intn(len(r.cs)), r.rng.Intn(2) == 0)
	}
	if r.rng.Float64() < 0.10 {
		r.undoOne()
	}
}

// cause creates a drift with a name never used before.
func (r *soakRun) cause(i int, node bool) {
	c := r.cs[i]
	d := &soakDrift{cluster: i, node: node}
	if node {
		d.name = fmt.Sprintf("ghost-%s-%04d", c.Name, len(r.drifts))
		d.needle = "Kubernetes node " + d.name + " of cluster"
		r.ghosts[i] = append(r.ghosts[i], d.name)
		r.setNodes(i)
		d.undo = func() {
			r.ghosts[i] = slices.DeleteFunc(r.ghosts[i], func(g string) bool { return g == d.name })
			r.setNodes(i)
		}
	} else {
		created := r.started.Add(-20*time.Minute - time.Duration(len(r.drifts))*time.Second)
		name, expunge, err := r.e.sim.AddStrayVM(c.ID, created)
		if err != nil {
			r.t.Fatal(err)
		}
		d.name, d.needle, d.undo = name, "VM "+name+" (", expunge
	}
	r.drifts = append(r.drifts, d)
	r.byName[d.name] = d
}

func (r *soakRun) setNodes(i int) {
	var names []string
	for _, vm := range r.cs[i].VMs {
		names = append(names, strings.ToLower(vm))
	}
	r.e.sim.Node(r.cs[i].ID).SetNodes(append(names, r.ghosts[i]...)...)
}

// undoOne undoes a random drift that is either announced or not reported yet. A reported drift
// whose annotation has not got through is left until it has: undoing it then would only test
// that a finding gone before it was announced is dropped, and would hide a lost announcement.
func (r *soakRun) undoOne() {
	annotations := r.e.annotations()
	var eligible []*soakDrift
	for _, d := range r.drifts {
		if d.undone {
			continue
		}
		annotated := count(annotations, "[WARN] "+d.needle) > 0
		if annotated || r.reported[d.name] == 0 {
			eligible = append(eligible, d)
		}
	}
	if len(eligible) == 0 {
		return
	}
	d := eligible[r.rng.Intn(len(eligible))]
	d.annotatedAtUndo = count(annotations, "[WARN] "+d.needle) > 0
	d.reportedAtUndo = r.reported[d.name] > 0
	d.undo()
	d.undone = true
}
