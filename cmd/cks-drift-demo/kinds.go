package main

import (
	"fmt"
	"io"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// maxAlerts is the demo's alert cap (notifier.max_alerts_per_cycle): its findings stay within
// it, so that each is alerted on its own and no capped summary is printed.
const maxAlerts = 10

// shown is how many findings of each kind buildWorld's cloud has (TestDemoKinds runs it).
var shown = map[collector.Kind]int{
	collector.KindUnmappedVM:          2, // analytics, and Team Green's renamed CKS VM
	collector.KindVMNotANode:          1, // ci-runners
	collector.KindNodeVersionMismatch: 2, // billing's two nodes
	collector.KindStuckInOperation:    1, // staging
	collector.KindVMMapExcess:         1, // search
	collector.KindMappedVMNotRunning:  1, // web
	collector.KindNetworkRuleMissing:  1, // payments' worker
	collector.KindOfferingMissing:     1, // reports
}

// notShown says why the demo leaves a kind out; every declared kind is shown or here.
var notShown = map[collector.Kind]string{
	collector.KindMappedVMExpunged: "left out to keep the demo within its alert cap; scenario 3 of docs/scenarios.md",
	collector.KindMappedVMMissing:  "needs the database source, which reads the map rows, and the demo reads the simulated API; scenario 3 of docs/scenarios.md",
	collector.KindVMMapIncomplete:  "left out to keep the demo within its alert cap; scenario 3 of docs/scenarios.md, through the API",
	collector.KindNodeWithoutVM:    "left out to keep the demo within its alert cap; TestCompare/node_that_matches_no_VM",
}

// printNotShown lists the kinds the demo leaves out, with why, in the declared order.
func printNotShown(w io.Writer) {
	fmt.Fprintln(w, "   Kinds not shown in this demo:")
	for _, k := range collector.Kinds {
		if why, ok := notShown[k]; ok {
			fmt.Fprintf(w, "     %s: %s\n", k, why)
		}
	}
}
