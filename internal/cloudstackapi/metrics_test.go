package cloudstackapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

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

// TestRequestDurations: every request's duration is observed by command, on an injected clock
// that the fake CloudStack moves while it answers; a request slower than SlowAfter(timeout) is
// kept, once, with the slowest one's command, until TakeSlow takes it, and a failed request
// counts as well.
func TestRequestDurations(t *testing.T) {
	t.Parallel()
	s := cloudstacktest.NewServer()
	t.Cleanup(s.Close)
	var (
		mu    sync.Mutex
		now   = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
		takes = map[string]time.Duration{"listVirtualMachines": 3 * time.Second, "listKubernetesClusters": 6 * time.Second, "listApis": 50 * time.Millisecond}
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		now = now.Add(takes[r.FormValue("command")])
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	m := NewMetrics()
	m.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	const timeout = 4 * time.Second // slow past 2 s
	c, err := New(Options{Endpoint: front.URL + "/client/api", APIKey: s.APIKey(), SecretKey: s.SecretKey(), Timeout: timeout, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	call := func(command string) error {
		custom, _ := cs.NewCustomService(c.SDK(context.Background())).(*cs.CustomService)
		var body json.RawMessage
		return custom.CustomRequest(command, &cs.CustomServiceParams{}, &body)
	}
	if err := call("listApis"); err != nil {
		t.Fatal(err)
	}
	if slow := m.TakeSlow(); slow.Count != 0 {
		t.Fatalf("a request of 50ms kept as slow: %+v", slow)
	}
	if err := call("listVirtualMachines"); err != nil {
		t.Fatal(err)
	}
	s.SetFault("listKubernetesClusters", cloudstacktest.Fault{Status: 530})
	if err := call("listKubernetesClusters"); err == nil {
		t.Fatal("the fault did not fail the request")
	}
	want := SlowRequests{Count: 2, Slowest: 6 * time.Second, Command: "listKubernetesClusters", Threshold: 2 * time.Second}
	if slow := m.TakeSlow(); slow != want {
		t.Fatalf("slow requests %+v, want %+v", slow, want)
	}
	if slow := m.TakeSlow(); slow.Count != 0 {
		t.Fatalf("TakeSlow kept %+v", slow)
	}
	for cmd, d := range takes {
		h := &dto.Metric{}
		if err := m.duration.WithLabelValues(cmd).(prometheus.Histogram).Write(h); err != nil {
			t.Fatal(err)
		}
		if got := h.GetHistogram(); got.GetSampleCount() != 1 || got.GetSampleSum() != d.Seconds() {
			t.Errorf("%s: %d requests observed, %v s in all; want 1 of %v", cmd, got.GetSampleCount(), got.GetSampleSum(), d)
		}
	}
	if problems, err := testutil.CollectAndLint(m); err != nil || len(problems) != 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}
