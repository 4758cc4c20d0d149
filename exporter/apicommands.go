package exporter

import "github.com/cks-drift-exporter/cks-drift-exporter/config"

// apiCommand is one CloudStack API command the exporter calls. apiCommands is the one list of
// them: --preflight asks the key's role about each one the configuration makes the exporter call,
// and docs/security.md's permission table and cmk loop are checked against it
// (TestAPICommandsDocumented). A new command is one entry here.
type apiCommand struct {
	name string
	// calledWith reports whether cfg makes the exporter call it; nil: preflight does not ask
	// (the reason is in the entry's comment).
	calledWith func(cfg *config.Config) bool
	// needed: the check cannot run without it; a refusal stops the preflight after the APIs.
	needed bool
	// since is the first release that has the command; empty: every release the exporter reads.
	// On an older release preflight says the command does not exist there instead of failing.
	since string
}

var apiCommands = []apiCommand{
	// First: asked first, it proves the endpoint and the keys (the database source calls it too,
	// for the notifier's writes and kubeconfigs).
	{name: "listKubernetesClusters", calledWith: always, needed: true},
	{name: "listVirtualMachines", calledWith: apiInventory, needed: true},
	{name: "listPortForwardingRules", calledWith: apiInventory, needed: true},
	// Without them, the network side (network_rule_missing) is not compared: the rules of the
	// clusters' networks, each listed cloud-wide (collector/inventory/api/rules.go).
	{name: "listNetworks", calledWith: apiInventory},
	{name: "listFirewallRules", calledWith: apiInventory},
	{name: "listLoadBalancerRules", calledWith: apiInventory},
	// With a VPC tier: which list is CloudStack's default_allow, by its uuid (no ACL items needed).
	{name: "listNetworkACLLists", calledWith: apiInventory},
	{name: "listNetworkACLs", calledWith: apiInventory},
	// Without it, kubelet versions are not compared.
	{name: "listKubernetesSupportedVersions", calledWith: apiInventory},
	// Without it, the clusters' service offerings are not compared (offering_missing).
	{name: "listServiceOfferings", calledWith: apiInventory},
	// When an operation started and the cause of each new finding (exporter/causes.go). Without
	// it, the exporter's first sighting of an operation state counts, and findings have no cause.
	{name: "listEvents", calledWith: apiInventory},
	// 4.14 only, which preflight cannot tell before asking: not asked.
	{name: "listPublicIpAddresses"},
	// How preflight asks, and 4.14 and 4.15's test for annotations: asking about it proves it.
	{name: "listApis", calledWith: always},
	{name: "getKubernetesClusterConfig", calledWith: func(cfg *config.Config) bool {
		return cfg.Check.NodeSource == config.NodeSourceKubernetesAPI && cfg.KubernetesAPI.KubeconfigDir == ""
	}},
	{name: "addAnnotation", calledWith: annotations},
	{name: "listAnnotations", calledWith: annotations},
	{name: "generateAlert", calledWith: alerts},
	{name: "listAlerts", calledWith: alerts},
	{name: "archiveAlerts", calledWith: alerts},
	{name: "queryAsyncJobResult", calledWith: alerts},
	// Only --preflight calls these, with events.webhook.enabled: the release (cloudstackversion),
	// then whether an Enabled Global webhook posts to this exporter and what its last deliveries
	// answered (preflight_webhook.go). The webhook plugin arrives in 4.20.0.0 (apache/cloudstack#8674).
	{name: "listCapabilities", calledWith: webhookEvents},
	{name: "listWebhooks", calledWith: webhookEvents, since: webhooksSince},
	{name: "listWebhookDeliveries", calledWith: webhookEvents, since: webhooksSince},
}

// commandSince is the first release that has the command name; "" for every release.
func commandSince(name string) string {
	for _, c := range apiCommands {
		if c.name == name {
			return c.since
		}
	}
	return ""
}

func always(*config.Config) bool { return true }

func apiInventory(cfg *config.Config) bool { return cfg.Inventory.Source == config.SourceAPI }

func annotations(cfg *config.Config) bool { return cfg.Notifier.Enabled && cfg.Notifier.Annotations }

func alerts(cfg *config.Config) bool { return cfg.Notifier.Enabled && cfg.Notifier.Alerts }

func webhookEvents(cfg *config.Config) bool { return cfg.Events.Webhook.Enabled }

// preflightAPIs are the commands --preflight asks about with cfg, in apiCommands' order, and
// how many of them lead the list as needed.
func preflightAPIs(cfg *config.Config) (names []string, needed int) {
	for _, c := range apiCommands {
		if c.calledWith == nil || !c.calledWith(cfg) {
			continue
		}
		names = append(names, c.name)
		if c.needed {
			needed = len(names)
		}
	}
	return names, needed
}
