package kubeapi

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
)

// TestListNodesVersions: ListNodes hands the drift check each node's kubelet version; one longer
// than a version can be is dropped (unknown), so that a hostile API server's megabyte strings are
// not kept for a cycle.
func TestListNodesVersions(t *testing.T) {
	long := "v1.28.4-" + strings.Repeat("x", 100)
	r := newRig(t, threeNodes[0], threeNodes[2], kubetest.Node{Name: "prod-node-18fd1d2a3e7", KubeletVersion: long})
	r.serve(t, r.api.NewToken(true))
	got, err := r.lister(t).ListNodes(context.Background(), r.cluster)
	if err != nil {
		t.Fatal(err)
	}
	want := []collector.Node{
		{Name: threeNodes[0].Name, KubeletVersion: "v1.28.4"},
		{Name: threeNodes[2].Name, KubeletVersion: "v1.27.9"},
		{Name: "prod-node-18fd1d2a3e7"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListNodes (-want +got):\n%s", diff)
	}
}
