package exporter

import (
	"log/slog"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// msgSlowRequests is the WARN of a cycle in which CloudStack answered slowly: a stall shorter
// than cloudstack.timeout fails nothing and would otherwise leave only a longer cycle.
const msgSlowRequests = "Requests to the CloudStack API were slow in this cycle"

// logSlowRequests logs msgSlowRequests once for the requests slower than their threshold
// (cloudstackapi.SlowAfter) since the last cycle's line: how many, and the slowest one.
func logSlowRequests(slow cloudstackapi.SlowRequests, logger *slog.Logger) {
	if slow.Count == 0 {
		return
	}
	logger.Warn(msgSlowRequests, "slow_requests", slow.Count, "slowest_command", slow.Command,
		"slowest", slow.Slowest.Round(time.Millisecond), "threshold", slow.Threshold)
}
