package cloudstackapi

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestMetricsMatchTheCallLog: the requests counted per command are the calls the fake
// CloudStack logged, page by page, and the bytes counted are the bytes it answered.
func TestMetricsMatchTheCallLog(t *testing.T) {
	t.Parallel()
	s := cloudstacktest.NewServer()
	t.Cleanup(s.Close)
	s.Update(func(w *cloudstacktest.World) {
		for i := range 23 {
			w.AddVM(cloudstacktest.VM{Name: fmt.Sprintf("vm-%02d", i), State: "Running", Account: "acme"})
		}
	})
	m := NewMetrics()
	c, err := New(Options{Endpoint: s.Endpoint(), APIKey: s.APIKey(), SecretKey: s.SecretKey(), Timeout: config.Defaults().CloudStack.Timeout, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	before := s.AnswerBytes()
	type page struct {
		Count int               `json:"count"`
		VMs   []json.RawMessage `json:"virtualmachine"`
	}
	vms, err := List(Listing[json.RawMessage, page]{What: "VMs", Size: 10, Count: Total, Request: func(n, size int) (page, error) {
		p := &cs.CustomServiceParams{}
		p.SetParam("listall", true)
		p.SetParam("page", n)
		p.SetParam("pagesize", size)
		custom, _ := cs.NewCustomService(c.SDK(context.Background())).(*cs.CustomService)
		var body page
		err := custom.CustomRequest("listVirtualMachines", p, &body)
		return body, err
	}, Decode: func(body page) (int, []json.RawMessage, error) { return body.Count, body.VMs, nil }})
	if err != nil || len(vms) != 23 {
		t.Fatalf("listed %d VMs, %v", len(vms), err)
	}
	p := &cs.CustomServiceParams{}
	custom, _ := cs.NewCustomService(c.SDK(context.Background())).(*cs.CustomService)
	var zones json.RawMessage
	if err := custom.CustomRequest("listKubernetesClusters", p, &zones); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"listVirtualMachines", "listKubernetesClusters"} {
		if got, want := testutil.ToFloat64(m.requests.WithLabelValues(cmd)), float64(s.CallCount(cmd)); got != want || want == 0 {
			t.Errorf("%s: %v requests counted, the fake logged %v", cmd, got, want)
		}
	}
	if got := testutil.ToFloat64(m.requests.WithLabelValues("listVirtualMachines")); got != 3 {
		t.Errorf("23 VMs in pages of 10: %v requests, want 3", got)
	}
	read := testutil.ToFloat64(m.bytes.WithLabelValues("listVirtualMachines")) + testutil.ToFloat64(m.bytes.WithLabelValues("listKubernetesClusters"))
	if answered := s.AnswerBytes() - before; read != float64(answered) || answered == 0 {
		t.Errorf("%v bytes counted, the fake answered %d", read, answered)
	}
}
