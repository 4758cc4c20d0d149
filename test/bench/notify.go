package main

import "fmt"

// inventoryCommands are the list calls of a cycle's inventory; every other call the fake counts
// is the notifier's.
var inventoryCommands = map[string]bool{
	"listKubernetesClusters": true, "listVirtualMachines": true, "listPortForwardingRules": true, "listPublicIpAddresses": true,
	"listKubernetesSupportedVersions": true,
	"listServiceOfferings":            true,
	"listNetworks":                    true, "listFirewallRules": true, "listLoadBalancerRules": true, "listNetworkACLLists": true, "listNetworkACLs": true, // the network side's
	"listEvents": true, // when a cluster's operation started, and the causes of new findings
}

// notifierCalls picks the notifier's calls out of a cycle's calls by command.
func notifierCalls(calls map[string]int) (map[string]int, int) {
	out := make(map[string]int)
	total := 0
	for k, v := range calls {
		if !inventoryCommands[k] {
			out[k] = v
			total += v
		}
	}
	return out, total
}

// notifyBound is the lower bound of the notifier's pass, from its own calls.
type notifyBound struct {
	Calls   int     `json:"calls"`
	Seconds float64 `json:"seconds"`
	Formula string  `json:"formula"`
}

// alertCalls are the calls of one alert: generateAlert (an asynchronous command: the SDK asks
// queryAsyncJobResult for its outcome) and listAlerts, to see that CloudStack stored it.
const alertCalls = 3

// summaryChain are the calls of the capped-alerts summary (archiveAlerts and an alert), made one
// after another once every other call of the pass is done.
const summaryChain = 1 + alertCalls

// notifierBound is the shortest pass the notifier's calls allow: notifier.concurrency calls at a
// time, but never fewer rounds than the longest chain of one cluster (an alerted finding:
// addAnnotation and its alert's calls), then the summary's chain.
func notifierBound(o options, calls map[string]int) notifyBound {
	total := 0
	for _, v := range calls {
		total += v
	}
	summary := 0
	if calls["archiveAlerts"] > 0 {
		summary = summaryChain
	}
	parallel := total - summary
	chain := min(parallel, 1)
	if calls["generateAlert"] > summary/summaryChain {
		chain = 1 + alertCalls
	}
	c := max(o.notifierConcurrency, 1)
	rounds := max(ceilDiv(parallel, c), chain)
	b := notifyBound{Calls: total, Seconds: float64(rounds+summary) * o.latency.Seconds()}
	b.Formula = fmt.Sprintf("(max(⌈%d/%d⌉, %d) + %d) × %s", parallel, c, chain, summary, o.latency)
	return b
}
