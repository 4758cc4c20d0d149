package exporter

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// CheckConfig is what --config.check runs: it loads the configuration file and builds every back
// end from it exactly as start-up and reload do (the SSH key read and parsed, known_hosts read,
// the CA read, the database DSN parsed), so a configuration it calls valid does not fail the
// start. shard is the command line's shard, as for LoadConfig. It leaves the state file alone.
// Unless offline, it then makes one read-only, signed call to CloudStack (checkKeys); warnings
// and notes go to w, the error is the problem that makes the configuration invalid.
func CheckConfig(ctx context.Context, path string, shard *int, offline bool, w io.Writer) error {
	cfg, err := LoadConfig(path, shard)
	if err != nil {
		return err
	}
	if warn := endpointWarning(cfg.CloudStack.Endpoint); warn != "" {
		fmt.Fprintf(w, "%s: warning: %s\n", path, warn)
	}
	for _, f := range config.FeaturesOff(cfg) {
		fmt.Fprintf(w, "%s: warning: %s\n", path, f)
	}
	src, err := newSources(cfg, &ssh.RunPins{}, ssh.NewMetrics(), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if src.close != nil {
		defer func() { _ = src.close() }()
	}
	if offline {
		return nil
	}
	// Online, the keys are checked whichever source reads the inventory: with the database
	// source the notifier still writes through the API.
	note, err := checkKeys(ctx, src.api, cfg.CloudStack.Timeout)
	if err != nil {
		return fmt.Errorf("%s: cloudstack.endpoint %s: %w", path, cfg.CloudStack.Endpoint, err)
	}
	fmt.Fprintf(w, "%s: %s\n", path, note)
	return nil
}
