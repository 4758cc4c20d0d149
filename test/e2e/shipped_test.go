package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

// scrapeTimeout bounds the wait for Prometheus's first scrape of the exporter: with the shipped
// 1m scrape interval, Prometheus spreads its first scrape anywhere in the first minute.
const scrapeTimeout = 90 * time.Second

// shippedCopy writes file of examples/ (relative to the repository) to dir under the same
// relative path, with each address in replace swapped; an address the file does not hold fails
// the test, so that the copy can only differ from the shipped file in addresses and ports.
func shippedCopy(t *testing.T, dir, file string, replace map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for from, to := range replace {
		if !strings.Contains(text, from) {
			t.Fatalf("%s no longer holds the address %s", file, from)
		}
		text = strings.ReplaceAll(text, from, to)
	}
	path := filepath.Join(dir, file)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// execStart returns the words of the unit's ExecStart line, continuation lines joined.
func execStart(t *testing.T) []string {
	t.Helper()
	const unit = "examples/systemd/cks-drift-exporter.service"
	data, err := os.ReadFile(filepath.Join("..", "..", unit))
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.ReplaceAll(string(data), "\\\n", " ")
	m := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(joined)
	if m == nil {
		t.Fatalf("%s has no ExecStart", unit)
	}
	return strings.Fields(m[1])
}

// TestExamplesAsShipped runs the examples together as an operator installs them: the exporter
// with the systemd unit's own ExecStart line and the default notifier.mode, Prometheus and
// Alertmanager with examples/prometheus.yml and examples/alertmanager.yml changed only in their
// addresses and ports. Prometheus scrapes the exporter and loads the rules, Alertmanager loads
// its configuration, and the exporter announces the drift itself (Alertmanager has no route to
// its webhook in this mode).
func TestExamplesAsShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus and Alertmanager")
	}
	tl := requireTools(t)
	dir := t.TempDir()

	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	c, err := sim.AddCluster(simulator.ClusterSpec{Name: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.DeleteMapRow(c.ID, c.VMs[2]); err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.WriteFiles(filepath.Join(dir, "exporter"), "  interval: "+fastInterval+"\n", "")
	if err != nil {
		t.Fatal(err)
	}

	// The exporter, started with the unit's ExecStart: its binary and configuration file at
	// their test paths, ${CKS_DRIFT_EXPORTER_LISTEN_ADDRESS} (the environment file's, or the
	// unit's loopback default) a free loopback port, and $CKS_DRIFT_EXPORTER_ARGS (the
	// environment file's extra flags) empty.
	bin := filepath.Join(dir, "cks-drift-exporter")
	build := exec.Command("go", "build", "-o", bin, "github.com/cks-drift-exporter/cks-drift-exporter/cmd/cks-drift-exporter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	expAddr := freeAddr(t)
	words := execStart(t)
	var args []string
	for _, w := range words[1:] {
		switch {
		case strings.HasPrefix(w, "--config.file="):
			args = append(args, "--config.file="+cfg)
		case w == "--web.listen-address=${CKS_DRIFT_EXPORTER_LISTEN_ADDRESS}":
			args = append(args, "--web.listen-address="+expAddr)
		case w == "$CKS_DRIFT_EXPORTER_ARGS":
		default:
			args = append(args, w)
		}
	}
	if words[0] != "/usr/bin/cks-drift-exporter" {
		t.Fatalf("the unit's ExecStart changed shape: %q", words)
	}
	startProc(t, "cks-drift-exporter", expAddr, bin, args...)

	amAddr := freeAddr(t)
	amConfig := shippedCopy(t, dir, "examples/alertmanager.yml", nil)
	runTool(t, tl.amtool, "check-config", amConfig)
	startProc(t, "alertmanager", amAddr, tl.alertmanager,
		"--config.file="+amConfig, "--storage.path="+t.TempDir(), "--web.listen-address="+amAddr, "--cluster.listen-address=")

	// prometheus.yml names the rules relative to itself, as ../rules/: they go there.
	ruleData, err := rules.FS.ReadFile(rules.RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules", rules.RulesFile), ruleData, 0o600); err != nil {
		t.Fatal(err)
	}
	promConfig := shippedCopy(t, dir, "examples/prometheus.yml", map[string]string{"127.0.0.1:9093": amAddr, "127.0.0.1:9862": expAddr})
	runTool(t, tl.promtool, "check", "config", promConfig)
	promAddr := freeAddr(t)
	startProc(t, "prometheus", promAddr, tl.prometheus,
		"--config.file="+promConfig, "--storage.tsdb.path="+t.TempDir(), "--web.listen-address="+promAddr)

	waitUntil(t, scrapeTimeout, "Prometheus to scrape the exporter with the drift", func() (bool, string) {
		up := query(t, promAddr, `up{job="cks-drift"} == 1`)
		drift := query(t, promAddr, `cks_drift_findings{kind="unmapped_vm",cluster_name="alpha"} == 1`)
		return len(up) == 1 && len(drift) == 1, fmt.Sprintf("up: %v, findings: %v", up, drift)
	})
	waitUntil(t, waitTimeout, "Prometheus to use the shipped Alertmanager", func() (bool, string) {
		var r struct {
			Data struct {
				Active []struct {
					URL string `json:"url"`
				} `json:"activeAlertmanagers"`
			} `json:"data"`
		}
		getJSON(t, "http://"+promAddr+"/api/v1/alertmanagers", &r)
		return len(r.Data.Active) == 1 && strings.Contains(r.Data.Active[0].URL, amAddr), fmt.Sprint(r.Data.Active)
	})
	for _, r := range alertRules(t, promAddr) {
		if r.Health == "err" {
			t.Errorf("rule %s fails: %s", r.Name, r.LastError)
		}
	}

	// notifier.mode direct: the exporter announced the finding itself.
	waitUntil(t, waitTimeout, "the exporter to announce the drift to CloudStack", func() (bool, string) {
		var cmds []string
		for _, call := range sim.CloudStack.Calls() {
			cmds = append(cmds, call.Command)
		}
		return strings.Contains(strings.Join(cmds, " "), "generateAlert"), strings.Join(cmds, " ")
	})
	code, body, err := get("http://" + expAddr + "/")
	if err != nil || code != 200 || !strings.Contains(string(body), "unmapped_vm") {
		t.Fatalf("the status page: %d %v", code, err)
	}
}
