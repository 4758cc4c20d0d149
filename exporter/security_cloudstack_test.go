package exporter

// What the exporter may send to CloudStack, and the checks of the CloudStack API's certificate.

import (
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/certtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// Notifier alert types of the default configuration.
const alertTypeMin, alertTypeMax = 20000, 29999

// TestCloudStackAllowList runs cycles through drift on both sides, the alert cap and its
// summary, failing and retried notifications, a failing inventory and the resolution of
// everything, and then reads the fake's call log: only the commands the README's permission
// list names were sent, and the only writes are the notifier's own alerts (types in its range),
// the archiving of those types, and admins-only annotations on Kubernetes clusters.
func TestCloudStackAllowList(t *testing.T) {
	t.Parallel()
	specs := []simulator.ClusterSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	e, cs := newEnv(t, specs...)
	e.writeConfig("  interval: 1h\n", "  max_alerts_per_cycle: 2\n")
	e.start()
	e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
	cycle := func() {
		t.Helper()
		n := e.cycles()
		post(t, e.url+"/-/check")
		e.waitFor("a cycle", func() bool { return e.cycles() > n })
	}

	e.sim.CloudStack.SetFault("generateAlert", cloudstacktest.Fault{Status: 530, Times: 1})
	e.sim.CloudStack.SetFault("addAnnotation", cloudstacktest.Fault{Status: 530, Times: 1})
	restart, err := e.sim.StopKubelet(cs[0].ID, cs[0].VMs[2]) // before the map rows go: it restores the nodes of the map
	if err != nil {
		t.Fatal(err)
	}
	var restore []func()
	for _, c := range cs {
		r, err := e.sim.DeleteMapRow(c.ID, c.VMs[1])
		if err != nil {
			t.Fatal(err)
		}
		restore = append(restore, r)
	}
	cycle()
	cycle()
	cycle() // the retries
	if f := e.findings(); len(f) != 5 {
		t.Fatalf("findings: %q", f)
	}
	e.sim.CloudStack.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530, Times: 1})
	cycle()
	for _, r := range restore {
		r()
	}
	restart()
	cycle()
	cycle()
	if f := e.findings(); len(f) != 0 {
		t.Fatalf("findings after the repair: %q", f)
	}
	m := e.metrics()
	w := e.writes()
	if m["cks_drift_notifications_capped_total"] == 0 || m["cks_drift_notification_failures_total"] < 2 || m["cks_drift_cycle_failures_total"] != 1 ||
		count(w, "archiveAlerts") == 0 || count(w, "[INFO]") == 0 || count(w, "generateAlert") < 3 {
		t.Fatalf("the run did not go through the cap, failures, retries and resolutions: capped %v, notification failures %v, cycle failures %v, writes %q",
			m["cks_drift_notifications_capped_total"], m["cks_drift_notification_failures_total"], m["cks_drift_cycle_failures_total"], w)
	}

	allowed := []string{"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules", "listKubernetesSupportedVersions", "listServiceOfferings", "queryAsyncJobResult",
		"generateAlert", "listAlerts", "archiveAlerts", "addAnnotation", "listAnnotations", "listEvents",
		"listNetworks", "listFirewallRules", "listLoadBalancerRules", "listNetworkACLLists", "listNetworkACLs"} // the network side's lists
	clusterIDs := make(map[string]bool)
	for _, c := range cs {
		clusterIDs[c.ID] = true
	}
	inRange := func(s string) bool {
		n, err := strconv.Atoi(s)
		return err == nil && n >= alertTypeMin && n <= alertTypeMax
	}
	seen := make(map[string]int)
	for _, c := range e.sim.CloudStack.Calls() {
		seen[c.Command]++
		if !slices.Contains(allowed, c.Command) {
			t.Errorf("command %q is not in the allow-list: %v", c.Command, c.Params)
			continue
		}
		p := c.Params
		switch c.Command {
		case "generateAlert":
			if !inRange(p.Get("type")) || p.Get("name") != "KUBERNETES.CLUSTER.VM.MAP.CHECK" || p.Has("podid") {
				t.Errorf("generateAlert outside the notifier's range or name: %v", p)
			}
		case "archiveAlerts":
			if !inRange(p.Get("type")) || p.Has("ids") || p.Has("startdate") || p.Has("enddate") {
				t.Errorf("archiveAlerts of other alerts than the notifier's types: %v", p)
			}
		case "addAnnotation":
			if p.Get("entitytype") != "KUBERNETES_CLUSTER" || p.Get("adminsonly") != "true" || !clusterIDs[p.Get("entityid")] {
				t.Errorf("addAnnotation not admins-only on a Kubernetes cluster: %v", p)
			}
		case "listEvents": // the causes of new findings: by the resource of a finding of these clusters
			if p.Get("resourceid") == "" && p.Get("id") == "" {
				t.Errorf("listEvents of no resource: %v", p)
			}
		case "listAlerts":
			if !inRange(p.Get("type")) {
				t.Errorf("listAlerts of other alerts than the notifier's types: %v", p)
			}
		}
	}
	for _, c := range []string{"generateAlert", "archiveAlerts", "addAnnotation", "queryAsyncJobResult", "listAlerts",
		"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules"} {
		if seen[c] == 0 {
			t.Errorf("%s was never called: the run did not exercise it", c)
		}
	}
	t.Logf("commands sent: %v", seen)
}

// TestCAFile runs the exporter against the fake CloudStack served over HTTPS with its own
// certificate: trusted through cloudstack.ca_file the cycle succeeds; with no CA, or another CA,
// it fails with the certificate error in the log; insecure_skip_verify succeeds with a warning.
func TestCAFile(t *testing.T) {
	t.Parallel()
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "test"})
	ts := httptest.NewUnstartedServer(e.sim.CloudStack.Handler())
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	caFile := filepath.Join(e.dir, "cloudstack-ca.pem")
	otherCA := filepath.Join(e.dir, "other-ca.pem")
	notPEM := filepath.Join(e.dir, "not-pem.txt")
	other, _ := certtest.SelfSigned(t, "127.0.0.1")
	for f, content := range map[string][]byte{
		caFile:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}),
		otherCA: other,
		notPEM:  []byte("not a certificate\n"),
	} {
		if err := os.WriteFile(f, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfig("  interval: 1h\n", "")
	secretLine := "  secret_key: " + e.sim.CloudStack.SecretKey() + "\n"
	base := replaceOnce(t, e.config(), "endpoint: "+e.sim.CloudStack.Endpoint()+"\n", "endpoint: "+ts.URL+"/client/api\n")

	const insecureWarning = "cloudstack.insecure_skip_verify"
	for _, tc := range []struct {
		name, extra string
		up          float64
		logged      string // in an ERROR line's err when up is 0, in a WARN line's message otherwise
	}{
		{"ca_file", "  ca_file: " + caFile + "\n", 1, ""},
		{"no ca_file", "", 0, "x509"},
		{"another CA", "  ca_file: " + otherCA + "\n", 0, "x509"},
		{"insecure_skip_verify", "  insecure_skip_verify: true\n", 1, insecureWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.setConfig(replaceOnce(t, base, secretLine, secretLine+tc.extra))
			mark := e.logs.mark()
			calls := len(e.sim.CloudStack.Calls())
			e.start()
			e.waitFor("the first cycle", func() bool { return e.cycles() == 1 })
			up := e.metrics()["cks_drift_up"]
			e.stop()
			if up != tc.up {
				t.Fatalf("cks_drift_up %v, want %v", up, tc.up)
			}
			warned := false
			for _, l := range e.logs.since(mark, slog.LevelWarn) {
				switch {
				case l.Level >= slog.LevelError && tc.up == 0 && strings.Contains(l.Attrs["err"], tc.logged):
					warned = true
				case l.Level == slog.LevelWarn && strings.Contains(l.Msg, insecureWarning):
					if tc.logged != insecureWarning {
						t.Errorf("insecure warning without insecure_skip_verify: %+v", l)
					}
					warned = true
				}
			}
			if tc.logged != "" && !warned {
				t.Errorf("nothing logged with %q: %+v", tc.logged, e.logs.since(mark, slog.LevelWarn))
			}
			if got := len(e.sim.CloudStack.Calls()); tc.up == 1 && got == calls {
				t.Error("the fake received no call")
			}
		})
	}

	e.setConfig(replaceOnce(t, base, secretLine, secretLine+"  ca_file: "+notPEM+"\n"))
	if _, err := New(Options{ConfigFile: e.cfg}); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Fatalf("a ca_file without a certificate: %v", err)
	}
}
