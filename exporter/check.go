package exporter

import (
	"fmt"
	"log/slog"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/kube"
)

// CheckConfig is what --config.check runs: it loads the configuration file and builds every back
// end from it exactly as start-up and reload do (the SSH key read and parsed, known_hosts read,
// the CA read, the database DSN parsed), so a configuration it calls valid does not fail the
// start. shard is the command line's shard, as for LoadConfig. It connects to nothing and leaves
// the state file alone.
func CheckConfig(path string, shard *int) error {
	cfg, err := LoadConfig(path, shard)
	if err != nil {
		return err
	}
	src, err := newSources(cfg, &kube.MemoryPins{}, kube.NewMetrics(), slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if src.close != nil {
		_ = src.close()
	}
	return nil
}
