package exporter

import (
	"net/url"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// Settings returns the effective settings that decide what the exporter does, as key/value
// pairs for the startup log line: where it reads, how often, how it lists nodes and how it
// notifies. Secrets and the names of the files that hold them are left out.
func (e *Exporter) Settings() []any {
	cfg, _ := e.current()
	return settings(cfg)
}

func settings(cfg *config.Config) []any {
	out := []any{"inventory_source", string(cfg.Inventory.Source)}
	if cfg.Inventory.Source == config.SourceDatabase {
		out = append(out, "database", "(dsn not shown)")
	} else {
		endpoint := cfg.CloudStack.Endpoint
		if u, err := url.Parse(endpoint); err == nil {
			endpoint = u.Redacted() // a password in the URL is not logged
		}
		out = append(out, "endpoint", endpoint)
	}
	out = append(out,
		"check_enabled", cfg.Check.Enabled,
		"interval", cfg.Check.Interval.String(),
		"grace_period", cfg.Check.GracePeriod.String(),
		"concurrency", cfg.Check.Concurrency,
		"node_source", string(cfg.Check.NodeSource),
	)
	if cfg.Check.NodeSource == config.NodeSourceSSH {
		out = append(out, "ssh_user", cfg.SSH.User, "ssh_host_key_policy", string(cfg.SSH.HostKeyPolicy))
	}
	if cfg.Check.TotalShards > 1 {
		out = append(out, "shard", cfg.Check.Shard, "total_shards", cfg.Check.TotalShards)
	}
	out = append(out, "notifier_enabled", cfg.Notifier.Enabled)
	if cfg.Notifier.Enabled {
		out = append(out, "notifier_mode", string(cfg.Notifier.Mode), "annotations", cfg.Notifier.Annotations,
			"alerts", cfg.Notifier.Alerts, "max_alerts_per_cycle", cfg.Notifier.MaxAlertsPerCycle)
	}
	return append(out, "state_file", cfg.Storage.Path)
}
