package cloudstacktest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
)

func TestSignedRequestsAreAccepted(t *testing.T) {
	s, cs := newTestServer(t)
	s.Update(func(w *World) { w.AddVM(VM{Name: "vm-1", State: "Running", Account: AdminAccount}) })

	// GET (list commands) and POST (generateAlert) are both signed by the SDK.
	l, err := cs.VirtualMachine.ListVirtualMachines(cs.VirtualMachine.NewListVirtualMachinesParams())
	if err != nil {
		t.Fatalf("ListVirtualMachines: %v", err)
	}
	if diff := cmp.Diff([]string{"vm-1"}, vmNames(l.VirtualMachines)); diff != "" {
		t.Errorf("VMs (-want +got):\n%s", diff)
	}
	// Values with characters the signature escapes specially: space, +, *, and non-ASCII.
	p := cs.Alert.NewGenerateAlertParams("a b+c*d ~é/?&=", "drift name", 4000)
	if _, err := cs.Alert.GenerateAlert(p); err != nil {
		t.Fatalf("GenerateAlert: %v", err)
	}
	for _, c := range s.Calls() {
		if c.Refused != "" {
			t.Errorf("call %s refused: %s", c.Command, c.Refused)
		}
	}
}

func TestWrongSecretIs401(t *testing.T) {
	s := NewServer()
	defer s.Close()
	cs := cloudstack.NewAsyncClient(s.Endpoint(), s.APIKey(), "wrong-secret", false)

	_, err := cs.Kubernetes.ListKubernetesClusters(cs.Kubernetes.NewListKubernetesClustersParams())
	wantAPIError(t, err, "401")
	calls := s.Calls()
	if len(calls) != 1 || calls[0].Refused != "signature mismatch" {
		t.Errorf("call log = %+v, want one call refused for its signature", calls)
	}

	bad := cloudstack.NewAsyncClient(s.Endpoint(), "other-key", s.SecretKey(), false)
	_, err = bad.Kubernetes.ListKubernetesClusters(bad.Kubernetes.NewListKubernetesClustersParams())
	wantAPIError(t, err, "401")
}

func TestEncodeValuesMatchesSDK(t *testing.T) {
	v := url.Values{
		"name":    {"a b+c*d~é/?&=%"},
		"ids":     {"x,y"},
		"Command": {"listX"},
		"empty":   {""},
		"multi":   {"1", "2"},
	}
	if got, want := encodeValues(v), cloudstack.EncodeValues(v); got != want {
		t.Errorf("encodeValues = %q, SDK EncodeValues = %q", got, want)
	}
}

func TestExpiredAndUnsignedRequestsAre401(t *testing.T) {
	s := NewServer()
	defer s.Close()
	tests := []struct {
		name   string
		params url.Values
		reason string
	}{
		{"expired", url.Values{"command": {"listAlerts"}, "signatureversion": {"3"},
			"expires": {time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}}, "request expired"},
		{"expires missing", url.Values{"command": {"listAlerts"}, "signatureversion": {"3"}}, "missing expires"},
		{"no signature", url.Values{"command": {"listAlerts"}, "signature": {""}, "apiKey": {DefaultAPIKey}}, "missing signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.ResetCalls()
			status, _, body := rawCall(t, s, tt.params)
			if status != 401 {
				t.Fatalf("status = %d, want 401: %s", status, body)
			}
			inner := decodeEnvelope(t, body, "listAlerts")
			if inner["errorcode"] != float64(401) {
				t.Errorf("errorcode = %v, want 401", inner["errorcode"])
			}
			if calls := s.Calls(); len(calls) != 1 || calls[0].Refused != tt.reason {
				t.Errorf("calls = %+v, want one call refused for %q", calls, tt.reason)
			}
		})
	}
}

func TestErrorEnvelope(t *testing.T) {
	s := NewServer()
	defer s.Close()
	status, _, body := rawCall(t, s, url.Values{"command": {"listAlerts"}, "pagesize": {"501"}})
	if status != 431 {
		t.Fatalf("status = %d, want 431", status)
	}
	inner := decodeEnvelope(t, body, "listAlerts")
	want := map[string]any{
		"uuidList": []any{}, "errorcode": float64(431), "cserrorcode": float64(4350),
		"errortext": "Page size can't exceed max allowed page size value: 500",
	}
	if diff := cmp.Diff(want, inner); diff != "" {
		t.Errorf("error envelope (-want +got):\n%s", diff)
	}
}

func TestUnknownCommandIs432(t *testing.T) {
	s, cs := newTestServer(t)
	var out map[string]any
	// CustomServiceIface declares no methods in v2.19.0; the concrete type has CustomRequest.
	err := cs.Custom.(*cloudstack.CustomService).CustomRequest("listNoSuchThings", &cloudstack.CustomServiceParams{}, &out)
	wantAPIError(t, err, "432")
	// Command names are case-sensitive, as in CloudStack.
	status, _, _ := rawCall(t, s, url.Values{"command": {"listalerts"}})
	if status != 432 {
		t.Errorf("lower-cased command: status %d, want 432", status)
	}
}

func TestCallLog(t *testing.T) {
	s, cs := newTestServer(t)
	for range 2 {
		if _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); err != nil {
			t.Fatal(err)
		}
	}
	p := cs.VirtualMachine.NewListVirtualMachinesParams()
	p.SetListall(true)
	if _, err := cs.VirtualMachine.ListVirtualMachines(p); err != nil {
		t.Fatal(err)
	}
	if got := s.CallCount("LISTALERTS"); got != 2 {
		t.Errorf("CallCount(LISTALERTS) = %d, want 2", got)
	}
	calls := s.Calls()
	if len(calls) != 3 || calls[2].Command != "listVirtualMachines" || calls[2].Params.Get("listall") != "true" {
		t.Errorf("calls = %+v", calls)
	}
	calls[2].Params.Set("listall", "changed") // a copy: the log must not change
	if s.Calls()[2].Params.Get("listall") != "true" {
		t.Error("Calls returned the log's own Params")
	}
	s.ResetCalls()
	if n := len(s.Calls()); n != 0 {
		t.Errorf("after ResetCalls %d calls remain", n)
	}
}

func TestNewServerOnAndHandler(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServerOn(l)
	defer s.Close()
	if !strings.Contains(s.Endpoint(), l.Addr().String()) {
		t.Errorf("Endpoint %q does not use listener %s", s.Endpoint(), l.Addr())
	}
	cs := cloudstack.NewAsyncClient(s.Endpoint(), s.APIKey(), s.SecretKey(), false)
	if _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); err != nil {
		t.Errorf("via NewServerOn: %v", err)
	}

	u := NewUnstarted()
	defer u.Close()
	hs := httptest.NewServer(http.StripPrefix("/cs", u.Handler()))
	defer hs.Close()
	cs = cloudstack.NewAsyncClient(hs.URL+"/cs/client/api", u.APIKey(), u.SecretKey(), false)
	if _, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams()); err != nil {
		t.Errorf("via Handler: %v", err)
	}
	if u.Endpoint() != "" || u.CallCount("listAlerts") != 1 {
		t.Errorf("unstarted: Endpoint %q, calls %d", u.Endpoint(), u.CallCount("listAlerts"))
	}
}
