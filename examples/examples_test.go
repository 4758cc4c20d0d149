package examples

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// requireTool returns the path of a command; see tooltest.Require.
func requireTool(t *testing.T, name, hint string) string {
	t.Helper()
	return tooltest.Require(t, name, hint)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPrometheusConfig(t *testing.T) {
	promtool := requireTool(t, "promtool", "apt-get install prometheus")
	// promtool also checks the rule files the configuration names.
	out := run(t, promtool, "check", "config", "prometheus.yml")
	if !strings.Contains(out, "1 rule files found") {
		t.Errorf("promtool check config found no rule file:\n%s", out)
	}
}

// bridgedAlertmanager returns alertmanager.yml with its bridge blocks uncommented.
func bridgedAlertmanager(t *testing.T) []byte {
	t.Helper()
	shipped, err := os.ReadFile("alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	bridged, err := EnableBridge(shipped)
	if err != nil {
		t.Fatal(err)
	}
	return bridged
}

// TestAlertmanagerConfig: as shipped, for notifier.mode: direct, every alert goes to people only;
// with the bridge blocks uncommented the drift alerts also go to the exporter's webhook.
func TestAlertmanagerConfig(t *testing.T) {
	amtool := requireTool(t, "amtool", "apt-get install prometheus-alertmanager")
	bridgeFile := filepath.Join(t.TempDir(), "alertmanager.yml")
	if err := os.WriteFile(bridgeFile, bridgedAlertmanager(t), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"alertmanager.yml", bridgeFile} {
		run(t, amtool, "check-config", file)
	}
	for _, tc := range []struct {
		file      string
		labels    []string
		receivers string
	}{
		{"alertmanager.yml", []string{"alertname=CKSVMMapDrift", "cluster_name=prod", "kind=unmapped_vm", "severity=warning"}, "default"},
		{"alertmanager.yml", []string{"alertname=CKSNodeDrift", "cluster_name=prod", "kind=node_without_vm", "severity=warning"}, "default"},
		{bridgeFile, []string{"alertname=CKSVMMapDrift", "cluster_name=prod", "kind=unmapped_vm", "severity=warning"}, "cks-drift-bridge,default"},
		{bridgeFile, []string{"alertname=CKSNodeDrift", "cluster_name=prod", "kind=node_without_vm", "severity=warning"}, "cks-drift-bridge,default"},
		{bridgeFile, []string{"alertname=CKSDriftCheckFailing", "job=cks-drift", "severity=warning"}, "default"},
		{"alertmanager.yml", []string{"alertname=NodeDown", "severity=critical"}, "default"},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.file))+"/"+tc.labels[0], func(t *testing.T) {
			// --verify.receivers makes amtool exit non-zero when the route differs.
			args := append([]string{"config", "routes", "test", "--config.file=" + tc.file,
				"--verify.receivers=" + tc.receivers}, tc.labels...)
			out := run(t, amtool, args...)
			if !strings.Contains(out, tc.receivers) {
				t.Errorf("routes test %v printed %q, want %s", tc.labels, out, tc.receivers)
			}
		})
	}
}

// TestAlertmanagerGroupsByClusterID: the CKS alerts are grouped by cluster_id, which is unique,
// and never by cluster_name, which two accounts may share.
func TestAlertmanagerGroupsByClusterID(t *testing.T) {
	var am struct {
		Route struct {
			Routes []struct {
				Matchers []string `yaml:"matchers"`
				GroupBy  []string `yaml:"group_by"`
			} `yaml:"routes"`
		} `yaml:"route"`
	}
	readYAML(t, "alertmanager.yml", &am)
	var found bool
	for _, r := range am.Route.Routes {
		if !slices.Contains(r.Matchers, `alertname=~"CKS.*"`) {
			continue
		}
		found = true
		if !slices.Contains(r.GroupBy, "cluster_id") || slices.Contains(r.GroupBy, "cluster_name") {
			t.Errorf("the CKS route groups by %q, want cluster_id and not cluster_name", r.GroupBy)
		}
	}
	if !found {
		t.Error(`no route with the matcher alertname=~"CKS.*"`)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestAddressesAgree ties the examples together: the scrape job and target, the webhook of the
// bridge and the rule file must name the same things.
func TestAddressesAgree(t *testing.T) {
	var prom struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName        string `yaml:"job_name"`
			ScrapeInterval string `yaml:"scrape_interval"`
			StaticConfigs  []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "prometheus.yml", &prom)
	if len(prom.ScrapeConfigs) != 1 || prom.ScrapeConfigs[0].JobName != "cks-drift" || prom.ScrapeConfigs[0].ScrapeInterval != "1m" {
		t.Fatalf("want one scrape job cks-drift every 1m, got %+v", prom.ScrapeConfigs)
	}
	target := prom.ScrapeConfigs[0].StaticConfigs[0].Targets[0]
	for _, f := range prom.RuleFiles {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("rule file: %v", err)
		}
	}

	var am struct {
		Receivers []struct {
			Name           string `yaml:"name"`
			WebhookConfigs []struct {
				URL          string `yaml:"url"`
				SendResolved bool   `yaml:"send_resolved"`
			} `yaml:"webhook_configs"`
		} `yaml:"receivers"`
	}
	if err := yaml.Unmarshal(bridgedAlertmanager(t), &am); err != nil {
		t.Fatalf("alertmanager.yml with the bridge: %v", err)
	}
	var bridge *url.URL
	for _, r := range am.Receivers {
		if r.Name == "cks-drift-bridge" && len(r.WebhookConfigs) == 1 && r.WebhookConfigs[0].SendResolved {
			bridge, _ = url.Parse(r.WebhookConfigs[0].URL)
		}
	}
	if bridge == nil || bridge.Host != target || bridge.Path != "/alertmanager/webhook" {
		t.Errorf("want receiver cks-drift-bridge with send_resolved posting to http://%s/alertmanager/webhook, got %v", target, bridge)
	}

	var ds struct {
		Datasources []struct {
			Type     string         `yaml:"type"`
			JSONData map[string]any `yaml:"jsonData"`
		} `yaml:"datasources"`
	}
	readYAML(t, "grafana/provisioning/datasources/prometheus.yml", &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" || ds.Datasources[0].JSONData["timeInterval"] != prom.ScrapeConfigs[0].ScrapeInterval {
		t.Errorf("want one prometheus data source with timeInterval = the scrape interval, got %+v", ds.Datasources)
	}
	var dp struct {
		Providers []struct {
			Type    string            `yaml:"type"`
			Options map[string]string `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "grafana/provisioning/dashboards/cks-drift.yml", &dp)
	if len(dp.Providers) != 1 || dp.Providers[0].Type != "file" || dp.Providers[0].Options["path"] == "" {
		t.Errorf("want one file provider with a path, got %+v", dp.Providers)
	}
}

func TestExporterConfigIsValid(t *testing.T) {
	t.Setenv("CS_API_KEY", "example-api-key")
	t.Setenv("CS_SECRET_KEY", "example-secret-key")
	cfg, err := config.Load("cks-drift-exporter.yml")
	if err != nil {
		t.Fatal(err)
	}
	// The file promises the defaults: compare it with a file that sets only what is required.
	defaults, err := config.Parse([]byte("cloudstack:\n  endpoint: https://cloud.example.com/client/api\n"+
		"  api_key: k\n  secret_key: s\n"), filepath.Join(t.TempDir(), "minimal.yml"))
	if err != nil {
		t.Fatal(err)
	}
	defaults.CloudStack.APIKey, defaults.CloudStack.SecretKey = cfg.CloudStack.APIKey, cfg.CloudStack.SecretKey
	if diff := cmp.Diff(defaults, cfg); diff != "" {
		t.Errorf("example configuration differs from the defaults (-defaults +example):\n%s", diff)
	}
}

// TestExporterConfigShowsEveryKey fails when the exporter learns a key that the example does
// not show, set or (for alternatives such as api_key_file) in a comment.
func TestExporterConfigShowsEveryKey(t *testing.T) {
	data, err := os.ReadFile("cks-drift-exporter.yml")
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]map[string]any
	if err := yaml.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	top := reflect.TypeFor[config.Config]()
	for i := range top.NumField() {
		section := yamlName(top.Field(i))
		st := top.Field(i).Type
		if st.Kind() == reflect.Slice { // a list of sections (accept): the keys of its items
			st = st.Elem()
		}
		for j := range st.NumField() {
			key := yamlName(st.Field(j))
			if _, ok := set[section][key]; ok {
				continue
			}
			if !regexp.MustCompile(`(?m)^\s*#\s*(- )?` + regexp.QuoteMeta(key) + `:`).Match(data) {
				t.Errorf("cks-drift-exporter.yml does not show %s.%s", section, key)
			}
		}
	}
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}
