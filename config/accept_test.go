package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

func TestAcceptRules(t *testing.T) {
	t.Parallel()
	const file = `
cloudstack:
  endpoint: https://cloud.example.com/client/api
  api_key: k
  secret_key: s
accept:
  - cluster: build-farm
    kind: unmapped_vm
    vm: build-farm-node-cache01
    reason: cache VM named like a node on purpose
    until: 2027-03-31
  - cluster: 0a3c4d5e-0000-4000-8000-00000000000a
    kind: vm_map_incomplete
    reason: "map row lost in the 4.18 upgrade, ticket 4711"
    until: "2027-03-31T18:00:00+02:00"
  - cluster: build-farm
    kind: node_without_vm
    vm: old-node
    reason: drained
`
	cfg, err := parse([]byte(file), "accept.yml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := []collector.AcceptRule{
		// A date accepts through the end of that day, UTC.
		{Cluster: "build-farm", Kind: collector.KindUnmappedVM, VM: "build-farm-node-cache01", Reason: "cache VM named like a node on purpose",
			Until: "2027-03-31", Ends: time.Date(2027, 4, 1, 0, 0, 0, 0, time.UTC)},
		{Cluster: "0a3c4d5e-0000-4000-8000-00000000000a", Kind: collector.KindVMMapIncomplete, Reason: "map row lost in the 4.18 upgrade, ticket 4711",
			Until: "2027-03-31T18:00:00+02:00", Ends: time.Date(2027, 3, 31, 16, 0, 0, 0, time.UTC)},
		{Cluster: "build-farm", Kind: collector.KindNodeWithoutVM, VM: "old-node", Reason: "drained"},
	}
	if diff := cmp.Diff(want, cfg.Rules()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if cfg.Accept[0].Until != "2027-03-31" {
		t.Errorf("until as written = %q, want 2027-03-31", cfg.Accept[0].Until)
	}
}
