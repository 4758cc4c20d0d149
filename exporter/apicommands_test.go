package exporter

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// TestPreflightAPIs: what --preflight asks for follows the configuration, from apiCommands.
func TestPreflightAPIs(t *testing.T) {
	withDefaults := func(edit func(c *config.Config)) *config.Config {
		c := config.Defaults()
		edit(&c)
		return &c
	}
	for _, tc := range []struct {
		name   string
		cfg    *config.Config
		want   []string
		needed int
	}{
		{"defaults", withDefaults(func(*config.Config) {}), []string{
			"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules", "listNetworks", "listFirewallRules",
			"listLoadBalancerRules", "listNetworkACLLists", "listNetworkACLs", "listKubernetesSupportedVersions", "listServiceOfferings",
			"listEvents", "listApis", "addAnnotation", "listAnnotations", "generateAlert", "listAlerts", "archiveAlerts", "queryAsyncJobResult"}, 3},
		// listEvents also finds the causes of new findings.
		{"stuck_after 0, notifier off", withDefaults(func(c *config.Config) { c.Check.StuckAfter = 0; c.Notifier.Enabled = false }), []string{
			"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules", "listNetworks", "listFirewallRules",
			"listLoadBalancerRules", "listNetworkACLLists", "listNetworkACLs", "listKubernetesSupportedVersions", "listServiceOfferings", "listEvents", "listApis"}, 3},
		{"webhook, notifier off", withDefaults(func(c *config.Config) { c.Events.Webhook.Enabled = true; c.Notifier.Enabled = false }), []string{
			"listKubernetesClusters", "listVirtualMachines", "listPortForwardingRules", "listNetworks", "listFirewallRules",
			"listLoadBalancerRules", "listNetworkACLLists", "listNetworkACLs", "listKubernetesSupportedVersions", "listServiceOfferings",
			"listEvents", "listApis", "listCapabilities", "listWebhooks", "listWebhookDeliveries"}, 3},
		{"database source, Kubernetes API nodes, alerts only", withDefaults(func(c *config.Config) {
			c.Inventory.Source = config.SourceDatabase
			c.Check.NodeSource = config.NodeSourceKubernetesAPI
			c.Notifier.Annotations = false
		}), []string{"listKubernetesClusters", "listApis", "getKubernetesClusterConfig", "generateAlert", "listAlerts", "archiveAlerts", "queryAsyncJobResult"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, needed := preflightAPIs(tc.cfg)
			if diff := cmp.Diff(tc.want, got); diff != "" || needed != tc.needed {
				t.Errorf("preflightAPIs: needed %d, want %d (-want +got):\n%s", needed, tc.needed, diff)
			}
		})
	}
}

// TestAPICommandsDocumented: docs/security.md's permission table and its cmk loop name exactly
// the commands of apiCommands.
func TestAPICommandsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, c := range apiCommands {
		want = append(want, c.name)
	}
	slices.Sort(want)
	start := strings.Index(doc, "## CloudStack permissions")
	if start < 0 {
		t.Fatal("docs/security.md has no CloudStack permissions section")
	}
	section := doc[start:]
	section = section[:strings.Index(section, "\n### ")]
	var table []string
	for _, m := range regexp.MustCompile("(?m)^\\| (`[^|]+`) \\|").FindAllStringSubmatch(section, -1) {
		for _, c := range regexp.MustCompile("`(\\w+)`").FindAllStringSubmatch(m[1], -1) {
			table = append(table, c[1])
		}
	}
	slices.Sort(table)
	if diff := cmp.Diff(want, table); diff != "" {
		t.Errorf("docs/security.md's permission table (-apiCommands +table):\n%s", diff)
	}
	loop := regexp.MustCompile(`(?s)for api in (.*?); do`).FindStringSubmatch(section)
	if loop == nil {
		t.Fatal("docs/security.md has no cmk loop over the commands")
	}
	got := strings.Fields(strings.ReplaceAll(loop[1], "\\", ""))
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/security.md's cmk loop (-apiCommands +loop):\n%s", diff)
	}
}
