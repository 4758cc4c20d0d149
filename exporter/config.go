package exporter

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// LoadConfig loads the configuration file and, when the exporter was given a shard of its own
// (Options.Shard), puts it in place of check.shard, at start-up, on every reload and for
// --config.check alike.
func LoadConfig(path string, shard *int) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	if shard != nil {
		if err := cfg.SetShard(*shard); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return cfg, nil
}
