package exporter

// The command run on a control node never comes from CloudStack data.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestKubectlCommandNeverFromCloudStackData gives a cluster and its VMs names full of shell
// syntax and checks that each control-node session ran only the configured command: the fake
// node counts only a kubectl get nodes as a command, runs nothing of a command with shell syntax
// (exit 2) and answers any other as sh would (exit 127), so sessions == commands and no
// exit_status failure mean nothing else was executed.
func TestKubectlCommandNeverFromCloudStackData(t *testing.T) {
	t.Parallel()
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "evil"})
	canary := filepath.Join(t.TempDir(), "pwned")
	evil := "evil;$(touch " + canary + ")`touch " + canary + "`'\"|&>" + canary + " #"
	e.sim.CloudStack.Update(func(w *cloudstacktest.World) {
		c := w.ClusterByName("evil")
		c.Name = evil
		for i, id := range c.VMMap {
			role := "node" // the exporter finds the control node by "-control" in its name
			if i == 0 {
				role = "control"
			}
			w.VMs[id].Name = fmt.Sprintf("evil-%s-%d;$(touch %s)'\"`id`\n&& touch %s", role, i, canary, canary)
		}
	})
	e.writeConfig("  interval: 1h\n", "")
	const command = "sudo /opt/bin/kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --request-timeout=1s"
	cfg := e.config()
	e.setConfig(replaceOnce(t, cfg, "  timeout: 5s\n", "  timeout: 5s\n  kubectl_command: "+command+"\n"))
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	for i := 2; i <= 3; i++ {
		post(t, e.url+"/-/check")
		e.waitFor("cycle "+strconv.Itoa(i), func() bool { return e.cycles() == float64(i) })
	}

	_, findings := get(t, e.url+"/findings")
	if !strings.Contains(findings, `"name": "evil;$(touch`) {
		t.Fatalf("the cluster's odd name did not reach the exporter:\n%s", findings)
	}
	node := e.sim.Node(cs[0].ID)
	if command != sshtest.DefaultCommand {
		t.Fatalf("the fake node answers %q, the exporter runs %q", sshtest.DefaultCommand, command)
	}
	if node.Commands() != 3 || node.Sessions() != node.Commands() {
		t.Fatalf("control node: %d sessions, %d of them the configured command; want 3 and 3", node.Sessions(), node.Commands())
	}
	m := e.metrics()
	if r := matching(m, `^cks_drift_kubectl_reachable`); r[keyOf(r)] != 1 || m[`cks_drift_kubectl_failures_total{reason="exit_status"}`] != 0 {
		t.Fatalf("kubectl: reachable %v, exit_status failures %v", r, m[`cks_drift_kubectl_failures_total{reason="exit_status"}`])
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("the canary file exists")
	}
}
