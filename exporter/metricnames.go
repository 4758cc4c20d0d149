package exporter

import (
	"sort"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// MetricNames returns the name of every metric family the exporter can emit, for the tests that
// fail when a rule or a dashboard names a metric that does not exist. It gathers a registry like
// the exporter's over a snapshot in which every series is present.
func MetricNames() ([]string, error) {
	now := time.Now()
	full := &collector.Snapshot{
		Start: now, End: now, Success: true, Enabled: true, LastSuccess: now,
		NodeListFailures: map[string]uint64{"timeout": 1},
		Clusters: []collector.ClusterStatus{{
			Cluster: collector.Cluster{ID: "k", Name: "k"},
			VM:      []collector.Finding{{Kind: collector.KindUnmappedVM, VMID: "v"}},
		}},
	}
	e := &Exporter{}
	e.snapshot.Store(full)
	e.live = e.newLiveRegistry()
	families, err := e.gatherer().Gather()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(families))
	for _, f := range families {
		names = append(names, f.GetName())
	}
	sort.Strings(names)
	return names, nil
}
