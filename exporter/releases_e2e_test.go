package exporter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// TestReleasesEndToEnd runs the built binary (--once, JSON) against the fake CloudStack answering
// as each release line does, with clusters as each release leaves them, and checks that every
// one gives exactly the findings a cluster of the newest release gives for the same drift: the map
// row of the second control VM is deleted, so that VM is unmapped_vm and nothing else is found,
// and kubectl is reached on the first control node.
func TestReleasesEndToEnd(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	tests := []struct {
		name     string
		release  string
		clusters int // the drift is in the last one
		spec     simulator.ClusterSpec
		config   func(string) string
	}{
		{name: "4.22 (the reference)", release: cloudstacktest.Release422, clusters: 1},
		// virtualmachineids and no ipaddress in the cluster answer; -master names; the login user
		// core is not recorded anywhere, so the operator sets ssh.user.
		{name: "4.14 cluster", release: cloudstacktest.Release414, clusters: 1,
			spec:   simulator.ClusterSpec{Pre416: true, NodeUser: "core"},
			config: func(c string) string { return replaceOnce(t, c, "ssh:\n", "ssh:\n  user: core\n") }},
		{name: "upgraded -master cluster logging in as core", release: cloudstacktest.Release422, clusters: 1,
			spec: simulator.ClusterSpec{Pre416: true, LoginUser: "core"}},
		{name: "VPC-tier cluster", release: cloudstacktest.Release418, clusters: 1,
			spec: simulator.ClusterSpec{VPCTier: true}},
		{name: "count = page length, more clusters than page_size", release: cloudstacktest.Release418, clusters: 5,
			config: func(c string) string { return replaceOnce(t, c, "cloudstack:\n", "cloudstack:\n  page_size: 2\n") }},
		{name: "NIC with extra DHCP options", release: cloudstacktest.Release422, clusters: 1,
			spec: simulator.ClusterSpec{ExtraDHCP: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := newEnv(t)
			e.sim.CloudStack.Update(func(w *cloudstacktest.World) { w.Release = tt.release })
			var last simulator.Cluster
			for i := range tt.clusters {
				spec := tt.spec
				spec.Name, spec.Controls, spec.Workers = fmt.Sprintf("c%d", i+1), 2, 2
				c, err := e.sim.AddCluster(spec)
				if err != nil {
					t.Fatal(err)
				}
				last = c
			}
			if _, err := e.sim.DeleteMapRow(last.ID, last.VMs[1]); err != nil {
				t.Fatal(err)
			}
			e.writeConfig("", "")
			if tt.config != nil {
				e.setConfig(tt.config(e.config()))
			}

			code, report := runOnceJSON(t, bin, e.cfg)
			if code != ExitDrift {
				t.Fatalf("exit code %d, want %d (drift); report %+v", code, ExitDrift, report)
			}
			if len(report.Clusters) != tt.clusters {
				t.Fatalf("%d clusters in the report, want %d", len(report.Clusters), tt.clusters)
			}
			for _, c := range report.Clusters {
				var got []string
				for _, f := range c.Findings {
					got = append(got, string(f.Kind)+" "+f.VMName)
				}
				var want []string
				if c.ID == last.ID {
					want = []string{"unmapped_vm " + last.VMs[1]}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("cluster %s: findings (-want +got):\n%s", c.Name, diff)
				}
				if !c.Checked || !c.NodesReachable || c.ClusterType != "CloudManaged" {
					t.Errorf("cluster %s: checked %v, kubectl reachable %v (%s), type %q; want checked, reachable, CloudManaged",
						c.Name, c.Checked, c.NodesReachable, c.NodesError, c.ClusterType)
				}
			}
			// Pages of 2 until a short one, then one call for the (empty) projects' scope.
			if n, want := e.sim.CloudStack.CallCount("listKubernetesClusters"), (tt.clusters+1)/2+1; tt.clusters > 2 && n != want {
				t.Errorf("%d listKubernetesClusters calls for %d clusters in pages of 2, want %d", n, tt.clusters, want)
			}
			if w := e.writes(); len(w) != 0 {
				t.Errorf("--once notified CloudStack: %q", w)
			}
		})
	}
}

// runOnceJSON runs the binary once with --once.format=json and decodes its report.
func runOnceJSON(t *testing.T, bin, cfg string) (int, report.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--once", "--once.format=json", "--log.level=warn")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var r report.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("the report is not JSON: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return cmd.ProcessState.ExitCode(), r
}
