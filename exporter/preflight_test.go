package exporter

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

func TestPreflight(t *testing.T) {
	e, cs := newEnv(t,
		simulator.ClusterSpec{Name: "alpha", Zone: "zone1"},
		simulator.ClusterSpec{Name: "beta", Zone: "zone1"},
		simulator.ClusterSpec{Name: "gamma", Zone: "zone2"},
		simulator.ClusterSpec{Name: "delta", Zone: "zone3", State: "Scaling"},
		simulator.ClusterSpec{Name: "epsilon", Zone: "zone1", ProjectID: "a0000000-0000-4000-8000-0000000000e1", Project: "team"},
	)
	e.writeConfig("", "")
	var logs logtest.Buffer
	run := func() (int, string) {
		var out bytes.Buffer
		code := Preflight(context.Background(), e.cfg, nil, &out, slog.New(slog.NewTextHandler(&logs, nil)))
		return code, out.String()
	}

	code, out := run()
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("a sound setup: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"ok    the key's role allows generateAlert: yes",
		// The first page lists no project's cluster; the inventory's two listings add up to it.
		"ok    one page of clusters: CloudStack counts 4 clusters outside projects\n",
		"ok    inventory: 5 clusters (4 outside projects, 1 in projects), ",
		"ok    ssh login in zone zone1 (cluster alpha): 3 Kubernetes nodes listed",
		"ok    ssh login in zone zone2 (cluster gamma)",
		"All ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the checklist lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "zone3") {
		t.Errorf("a login was tried in a zone whose only cluster is skipped:\n%s", out)
	}
	// It pins nothing, and its log does not say it did.
	if l := logs.String(); strings.Contains(l, "Pinned") || !strings.Contains(l, "for this run only; nothing is pinned") {
		t.Errorf("preflight's log about host keys:\n%s", l)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("preflight wrote to CloudStack: %q", w)
	}
	// It asked listApis about every command the configuration makes the exporter call.
	var asked []string
	for _, c := range e.sim.CloudStack.Calls() {
		if c.Command == "listApis" {
			asked = append(asked, c.Params.Get("name"))
		}
	}
	cfg, err := config.Load(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := preflightAPIs(cfg)
	if !slices.Equal(asked, want) || !slices.Contains(asked, "listEvents") {
		t.Errorf("preflight asked listApis about %v, want %v", asked, want)
	}

	// One fault: the control node of gamma, the one cluster of zone2, refuses SSH.
	e.sim.Node(cs[2].ID).SetMode(sshtest.Refuse)
	code, out = run()
	t.Logf("--preflight with the control node of zone2 refusing SSH:\n%s", out)
	if code != 1 || !strings.Contains(out, "FAIL  ssh login in zone zone2 (cluster gamma)") ||
		!strings.Contains(out, "handshake: the SSH handshake failed") || !strings.Contains(out, "1 of ") {
		t.Fatalf("a refusing control node: exit %d\n%s", code, out)
	}
	e.sim.Node(cs[2].ID).SetMode(sshtest.Normal)

	// A wrong secret key: the API check fails with the fix, and nothing after it is tried.
	e.editConfig("secret_key: "+e.sim.CloudStack.SecretKey(), "secret_key: wrong")
	code, out = run()
	if code != 1 || !strings.Contains(out, "FAIL  CloudStack API at") || !strings.Contains(out, "cloudstack.secret_key") ||
		strings.Contains(out, "login") {
		t.Fatalf("a wrong secret: exit %d\n%s", code, out)
	}
}

// TestPreflightKubernetesAPI: with the Kubernetes API source, a failure is labelled with that
// source's reason and explained in its words, not the SSH source's "other".
func TestPreflightKubernetesAPI(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: "alpha", Zone: "zone1"})
	api := startKubeAPI(t, e.sim, cs[0])
	e.writeConfig("", "")
	e.useKubernetesAPI()
	var out bytes.Buffer
	if code := Preflight(context.Background(), e.cfg, nil, &out, slog.New(slog.DiscardHandler)); code != 0 {
		t.Fatalf("a sound setup: exit %d\n%s", code, out.String())
	}
	api.Close()
	out.Reset()
	code := Preflight(context.Background(), e.cfg, nil, &out, slog.New(slog.DiscardHandler))
	t.Logf("--preflight with the API server gone:\n%s", out.String())
	want := "api_unreachable: the cluster's Kubernetes API server could not be reached"
	if code != 1 || !strings.Contains(out.String(), "FAIL  kubernetes_api login in zone zone1 (cluster alpha)") || !strings.Contains(out.String(), want) {
		t.Fatalf("exit %d, want 1 and %q:\n%s", code, want, out.String())
	}
}
