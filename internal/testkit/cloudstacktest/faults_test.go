package cloudstacktest

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

func TestFaultRawBodyIsNotJSON(t *testing.T) {
	s, cs := newTestServer(t)
	s.SetFault("listKubernetesClusters", Fault{RawBody: "<html><body>502 Bad Gateway</body></html>"})
	_, err := cs.Kubernetes.ListKubernetesClusters(cs.Kubernetes.NewListKubernetesClustersParams())
	if err == nil {
		t.Fatal("an HTML answer decoded without error")
	}
	// Other commands are unaffected.
	if _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); err != nil {
		t.Errorf("listAlerts: %v", err)
	}
}

func TestFaultStatusAndTimes(t *testing.T) {
	s, cs := newTestServer(t)
	s.SetFault("LISTVIRTUALMACHINES", Fault{Status: 530, Times: 1})
	list := func() error {
		_, err := cs.VirtualMachine.ListVirtualMachines(cs.VirtualMachine.NewListVirtualMachinesParams())
		return err
	}
	wantAPIError(t, list(), "530")
	if err := list(); err != nil {
		t.Errorf("fault with Times 1 still active: %v", err)
	}

	s.SetFault("", Fault{Status: 429, RetryAfter: "7"})
	s.SetFault("listAlerts", Fault{Status: 9999}) // not an HTTP status: answered as 530
	status, hdr, body := rawCall(t, s, url.Values{"command": {"listVirtualMachines"}})
	if status != 429 || hdr.Get("Retry-After") != "7" {
		t.Errorf("wildcard fault: status %d, Retry-After %q: %s", status, hdr.Get("Retry-After"), body)
	}
	if status, _, _ := rawCall(t, s, url.Values{"command": {"listAlerts"}}); status != 530 {
		t.Errorf("status 9999 answered with %d, want 530", status)
	}
	s.ClearFaults()
	wantNoErr(t, list())
}

func TestFaultCountDelta(t *testing.T) {
	s, cs := newTestServer(t)
	s.Update(func(w *World) {
		for range 3 {
			w.AddVM(VM{Account: AdminAccount, Name: "vm"})
		}
	})
	s.SetFault("listVirtualMachines", Fault{CountDelta: 2})
	l, err := cs.VirtualMachine.ListVirtualMachines(cs.VirtualMachine.NewListVirtualMachinesParams())
	if err != nil {
		t.Fatal(err)
	}
	if l.Count != 5 || len(l.VirtualMachines) != 3 {
		t.Errorf("count %d with %d VMs, want count 5 with 3 VMs", l.Count, len(l.VirtualMachines))
	}
}

func TestFaultDelayHonoursClientTimeout(t *testing.T) {
	s, cs := newTestServer(t, cloudstack.WithHTTPClient(&http.Client{Timeout: 100 * time.Millisecond}))
	s.SetFault("", Fault{Delay: time.Minute})
	start := time.Now()
	if _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); err == nil {
		t.Error("a delayed answer beat the client timeout")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("client waited %v", d)
	}

	// Close does not wait for a delayed answer whose client is still waiting.
	go func() {
		slow := cloudstack.NewAsyncClient(s.Endpoint(), s.APIKey(), s.SecretKey(), false)
		_, _ = slow.Alert.ListAlerts(slow.Alert.NewListAlertsParams())
	}()
	for s.CallCount("listAlerts") < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	start = time.Now()
	s.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestLatency(t *testing.T) {
	s, cs := newTestServer(t)
	s.SetLatency(50 * time.Millisecond)
	start := time.Now()
	wantNoErr(t, func() error { _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); return err }())
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered in %v despite 50ms latency", d)
	}
}

func wantNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
