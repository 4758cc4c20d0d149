package exporter

import (
	"log/slog"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// msgInventoryAgain is the INFO line that ends an outage of the inventory: after it, the journal's
// last word on CloudStack is no longer the ERROR of a failed cycle.
const msgInventoryAgain = "The inventory is read from CloudStack again; the check works again"

// logInventoryRecovery logs msgInventoryAgain once, in the first cycle that reads the inventory
// after cycles that could not, with how many failed, since when, and the last error.
func logInventoryRecovery(prev, next *collector.Snapshot, logger *slog.Logger) {
	if !next.Success || prev.FailedInARow == 0 {
		return
	}
	logger.Info(msgInventoryAgain, "failed_cycles", prev.FailedInARow,
		"failing_since", prev.FailingSince.UTC().Format(time.RFC3339), "last_err", prev.Error)
}
