package config

import (
	"fmt"
	"strconv"
	"strings"
)

// maxShards bounds check.total_shards, and so the ordinals a hostname may carry.
const maxShards = 1024

// OrdinalFromHostname returns the ordinal at the end of a StatefulSet pod's hostname
// ("cks-drift-exporter-2" is 2), so that replicas of one StatefulSet take their shard from
// their name, as kube-state-metrics' automatic sharding does.
func OrdinalFromHostname(hostname string) (int, error) {
	i := strings.LastIndexByte(hostname, '-')
	digits := hostname[i+1:]
	if i < 0 || digits == "" || len(digits) > 4 || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("hostname %q does not end in -<ordinal> as a StatefulSet pod's does", hostname)
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n >= maxShards {
		return 0, fmt.Errorf("hostname %q: ordinal %s is not below %d", hostname, digits, maxShards)
	}
	return n, nil
}

// SetShard replaces check.shard with a shard found outside the file (a pod's ordinal). It
// fails, and leaves the configuration as it was, when the shard is not below check.total_shards:
// a replica beyond the total would check nothing while looking healthy.
func (c *Config) SetShard(shard int) error {
	if shard < 0 || shard >= c.Check.TotalShards {
		return fmt.Errorf("check.shard %d (from the hostname) must be below check.total_shards %d: set total_shards to the number of replicas", shard, c.Check.TotalShards)
	}
	c.Check.Shard = shard
	return nil
}
