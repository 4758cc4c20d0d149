package notifier_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestSidesGoThroughTheirDeclarations: the network and cluster sides are announced and resolved
// by their declarations alone. A finding of each is announced once; while the network side is
// not compared (its rules were not read) its finding is neither resolved nor announced again,
// while the cluster side, compared (its offerings were read), resolves with its own message.
func TestSidesGoThroughTheirDeclarations(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	rule := collector.Finding{Kind: "network_kind", Message: "a rule of prod is gone", FirstSeen: time.Now()}
	offering := collector.Finding{Kind: "cluster_kind", Message: "an offering of prod is gone", FirstSeen: time.Now()}
	both := e.status()
	both[0].Cluster.Rules = &collector.NetworkRules{}
	both[0].Set(collector.SideNetwork, []collector.Finding{rule})
	both[0].Set(collector.SideCluster, []collector.Finding{offering})
	e.notify(both)
	e.notify(both)
	if got := e.annotations(); len(got) != 2 || !slices.Contains(got, "[WARN] "+rule.Message) || !slices.Contains(got, "[WARN] "+offering.Message) {
		t.Fatalf("annotations %q, want each finding's once", got)
	}
	e.notify(e.status()) // the rules are not read: the network side is not compared
	info := "[INFO] " + notifier.Resolution(collector.SideCluster, "prod")
	if got := e.annotations(); len(got) != 3 || got[2] != info {
		t.Fatalf("annotations %q, want the cluster side's resolution %q only", got, info)
	}
	if info != "[INFO] The service offerings of Kubernetes cluster prod are active in CloudStack again" {
		t.Errorf("cluster side's resolution %q", info)
	}
	if _, known := e.saved(t).Clusters[e.cluster.ID].Sides[collector.SideNetwork].Findings[rule.Key()]; !known {
		t.Error("the network side's finding was dropped while the side was not compared")
	}
	if got := notifier.Resolution(collector.SideNetwork, "prod"); got != "The network rules of Kubernetes cluster prod match what CKS created again" {
		t.Errorf("network side's resolution %q", got)
	}
}
