package main

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// shardFromHostname is the shard of --check.shard-from-hostname: nil when the flag is off, the
// ordinal at the end of the hostname when it is on, so that one StatefulSet of N replicas with
// check.total_shards: N splits the clusters without a configuration per replica.
func shardFromHostname(on bool, hostname func() (string, error)) (*int, error) {
	if !on {
		return nil, nil
	}
	name, err := hostname()
	if err != nil {
		return nil, fmt.Errorf("--check.shard-from-hostname: %w", err)
	}
	n, err := config.OrdinalFromHostname(name)
	if err != nil {
		return nil, fmt.Errorf("--check.shard-from-hostname: %w", err)
	}
	return &n, nil
}
