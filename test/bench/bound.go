package main

// The lower bound of a cycle and the API pages it reads, from the world's size alone.

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// bound is the lower bound of a cycle and the API call target, from the world's size alone.
type bound struct {
	Pages      int     `json:"pages"`
	APISeconds float64 `json:"api_seconds"`
	Healthy    int     `json:"healthy_clusters"`
	Hanging    int     `json:"hanging_clusters"`
	SSHSeconds float64 `json:"ssh_seconds"`
	// Seconds and Formula are the warm cycle's bound: the nodes that timed out in the cycle
	// before wait in their own lane (check.hanging_concurrency).
	Seconds float64 `json:"seconds"`
	Formula string  `json:"formula"`
	// ColdSeconds and ColdFormula are the first cycle's, before the notifier's: no node has
	// timed out yet, so the hanging ones take workers of the one lane.
	ColdSeconds float64 `json:"cold_seconds"`
	ColdFormula string  `json:"cold_formula"`
	// APITarget is the ceiling: 2·⌈VMs/page⌉ + 2·⌈clusters/page⌉ + ⌈rules/page⌉ + 5, plus
	// the pages of the lists added since (newLists), each paged cloud-wide.
	APITarget int `json:"api_target"`
}

func pages(n, size int) int { return max(1, (n+size-1)/size) }

// newLists are the lists the API call target did not know when it was set: the service offerings
// and the network side's (issue 33), each read cloud-wide.
var newLists = map[string]bool{"listServiceOfferings": true, "listNetworks": true, "listFirewallRules": true, "listLoadBalancerRules": true}

// listPages are the API pages a cycle of the exporter reads, by command, from the world's size
// alone: clusters and VMs in both scopes (without and with projectid=-1, each at least one call
// even when empty), port-forwarding rules and the network side's lists in the scopes that have
// clusters, the service offerings once (the clusters name them). Nothing in it grows
// with the clusters but by pages. lowerBound counts them; TestRequestsPerCycle checks them against
// the calls of the exporter's own cycles.
func listPages(o options, c world.Counts) map[string]int {
	ps := o.pageSize
	out := map[string]int{
		"listKubernetesClusters": pages(c.Clusters, ps),
		"listVirtualMachines":    pages(c.VMs, ps),
	}
	if o.includeProjects {
		out["listKubernetesClusters"] += pages(c.ProjectClusters, ps)
		out["listVirtualMachines"] += pages(c.ProjectVMs, ps)
	}
	if c.Clusters > 0 {
		out["listPortForwardingRules"] += pages(c.Rules, ps)
	}
	if o.includeProjects && c.ProjectClusters > 0 {
		out["listPortForwardingRules"] += pages(c.ProjectRules, ps)
	}
	if c.Offerings > 0 { // every cluster names one: listed once, cloud-wide
		out["listServiceOfferings"] = pages(c.Offerings, ps)
	}
	// The network side's lists, in the same scopes (collector/inventory/api/rules.go); the world's
	// clusters are on isolated networks, so no VPC tier makes the ACL items listed.
	for command, n := range map[string][2]int{
		"listNetworks":          {c.Networks, c.ProjectNetworks},
		"listFirewallRules":     {c.Firewall, c.ProjectFirewall},
		"listLoadBalancerRules": {c.Balancing, c.ProjectBalancing},
	} {
		if c.Clusters > 0 {
			out[command] += pages(n[0], ps)
		}
		if o.includeProjects && c.ProjectClusters > 0 {
			out[command] += pages(n[1], ps)
		}
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// lowerBound is, for the warm cycle, API pages × latency + max(⌈healthy clusters / concurrency⌉
// × handshake delay, ⌈hanging clusters / hanging concurrency⌉ × ssh.timeout): the two lanes run
// side by side. For the cold cycle, no node has timed out yet and every cluster is in one lane:
// API + ⌈healthy / concurrency⌉ × handshake + hanging × ssh.timeout / concurrency, never less
// than API + ssh.timeout when a node hangs (a cycle cannot end before its slowest node). Pages
// are counted as the exporter needs them: clusters and VMs in both scopes (without and with
// projectid=-1, each at least one call even when empty), rules in the scopes that have clusters.
func lowerBound(o options, c world.Counts) bound {
	ps := o.pageSize
	var b bound
	for _, n := range listPages(o, c) {
		b.Pages += n
	}
	clusters, vms, rules := c.Totals()
	b.Hanging = c.Hanging
	b.Healthy = clusters - c.Hanging
	b.APISeconds = float64(b.Pages) * o.latency.Seconds()
	conc, hconc := max(o.concurrency, 1), max(o.hangingConcurrency, 1)
	api := fmt.Sprintf("%d pages × %s", b.Pages, o.latency)

	answering := float64(ceilDiv(b.Healthy, conc)) * o.handshake.Seconds()
	hanging := float64(ceilDiv(b.Hanging, hconc)) * o.sshTimeout.Seconds()
	b.SSHSeconds = max(answering, hanging)
	b.Seconds = b.APISeconds + b.SSHSeconds
	b.Formula = fmt.Sprintf("%s + max(⌈%d/%d⌉ × %s, ⌈%d/%d⌉ × %s) = %.2f + %.2f s",
		api, b.Healthy, conc, o.handshake, b.Hanging, hconc, o.sshTimeout, b.APISeconds, b.SSHSeconds)

	spread := answering + float64(b.Hanging)*o.sshTimeout.Seconds()/float64(conc)
	if b.Hanging > 0 && o.sshTimeout.Seconds() > spread {
		b.ColdSeconds = b.APISeconds + o.sshTimeout.Seconds()
		b.ColdFormula = fmt.Sprintf("%s + max(⌈%d/%d⌉ × %s + %d × %s / %d, %s) = %.2f + %.2f s",
			api, b.Healthy, conc, o.handshake, b.Hanging, o.sshTimeout, conc, o.sshTimeout, b.APISeconds, o.sshTimeout.Seconds())
	} else {
		b.ColdSeconds = b.APISeconds + spread
		b.ColdFormula = fmt.Sprintf("%s + ⌈%d/%d⌉ × %s + %d × %s / %d = %.2f + %.2f s",
			api, b.Healthy, conc, o.handshake, b.Hanging, o.sshTimeout, conc, b.APISeconds, spread)
	}
	b.APITarget = 2*ceilDiv(vms, ps) + 2*ceilDiv(clusters, ps) + ceilDiv(rules, ps) + 5
	for cmd, n := range listPages(o, c) {
		if newLists[cmd] {
			b.APITarget += n
		}
	}
	return b
}
