package cloudstacktest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
)

const zone1 = "cafe2000-0000-4000-8000-000000000001"

// generate sends one alert in zone1 and fails the test on error.
func generate(t *testing.T, cs *cloudstack.CloudStackClient, typ int, name, desc string) {
	t.Helper()
	p := cs.Alert.NewGenerateAlertParams(desc, name, typ)
	p.SetZoneid(zone1)
	r, err := cs.Alert.GenerateAlert(p)
	if err != nil {
		t.Fatalf("GenerateAlert(%d, %q): %v", typ, desc, err)
	}
	if !r.Success {
		t.Fatalf("GenerateAlert(%d, %q): success false", typ, desc)
	}
}

// storedAlerts lists the non-archived alerts through the SDK as "type:description".
func storedAlerts(t *testing.T, cs *cloudstack.CloudStackClient) []string {
	t.Helper()
	l, err := cs.Alert.ListAlerts(cs.Alert.NewListAlertsParams())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range l.Alerts {
		out = append(out, strconv.Itoa(a.Type)+":"+a.Description)
	}
	return out
}

func TestGenerateAlertLatch(t *testing.T) {
	s, cs := newTestServer(t)

	generate(t, cs, 4000, "CKS.DRIFT", "first")
	generate(t, cs, 4000, "CKS.DRIFT", "second") // latched: success, nothing stored
	generate(t, cs, 4001, "CKS.DRIFT", "other type")
	if diff := cmp.Diff([]string{"4001:other type", "4000:first"}, storedAlerts(t, cs)); diff != "" {
		t.Errorf("alerts after the latch (-want +got):\n%s", diff)
	}

	a := cs.Alert.NewArchiveAlertsParams()
	a.SetType("4000")
	if r, err := cs.Alert.ArchiveAlerts(a); err != nil || !r.Success {
		t.Fatalf("ArchiveAlerts: %+v, %v", r, err)
	}
	generate(t, cs, 4000, "CKS.DRIFT", "third") // the latch is released
	if diff := cmp.Diff([]string{"4000:third", "4001:other type"}, storedAlerts(t, cs)); diff != "" {
		t.Errorf("alerts after archiving (-want +got):\n%s", diff)
	}
	s.Read(func(w *World) {
		if len(w.Alerts) != 3 || !w.Alerts[0].Archived || w.Alerts[0].ZoneID != zone1 {
			t.Errorf("world alerts: %+v", w.Alerts)
		}
	})
}

func TestGenerateAlertLatchByPod(t *testing.T) {
	s, cs := newTestServer(t)
	send := func(pod string) {
		p := cs.Alert.NewGenerateAlertParams("d", "X", 5000)
		if pod != "" {
			p.SetPodid(pod)
		}
		if _, err := cs.Alert.GenerateAlert(p); err != nil {
			t.Fatal(err)
		}
	}
	send("cafe3000-0000-4000-8000-000000000001")
	send("cafe3000-0000-4000-8000-000000000002") // another pod: stored
	send("")                                     // no pod matches any pod: latched
	s.Read(func(w *World) {
		if len(w.Alerts) != 2 {
			t.Errorf("stored %d alerts, want 2", len(w.Alerts))
		}
	})
}

func TestGenerateAlertValidation(t *testing.T) {
	s, cs := newTestServer(t)
	tests := []struct {
		name      string
		typ       int
		alertName string
		desc      string
		wantErr   string // "" for success
		immediate bool   // refused before a job exists
	}{
		{"built-in type under another name", 8, "CKS.DRIFT", "d", "431", false},
		{"built-in type under its own name", 8, "alert.uservm", "d", "", false},
		{"type 32 under one of its names", 32, "ALERT.VM.START", "d", "", false},
		{"custom type 33", 33, "anything", "d", "", false},
		{"999 characters", 6000, "X", strings.Repeat("é", 999), "", false},
		{"1000 characters", 6001, "X", strings.Repeat("x", 1000), "431", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.ResetCalls()
			_, err := cs.Alert.GenerateAlert(cs.Alert.NewGenerateAlertParams(tt.desc, tt.alertName, tt.typ))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one mentioning %s", err, tt.wantErr)
			}
			if polled := s.CallCount("queryAsyncJobResult") > 0; polled == tt.immediate {
				t.Errorf("queryAsyncJobResult called: %v, want %v", polled, !tt.immediate)
			}
		})
	}
	if IsBuiltinAlertType(33) || !IsBuiltinAlertType(28) || !IsBuiltinAlertType(0) {
		t.Error("IsBuiltinAlertType disagrees with AlertService.java")
	}
}

func TestArchiveAlertsErrors(t *testing.T) {
	s, cs := newTestServer(t)
	generate(t, cs, 4000, "X", "a")
	var id string
	s.Read(func(w *World) { id = w.Alerts[0].ID })

	_, err := cs.Alert.ArchiveAlerts(cs.Alert.NewArchiveAlertsParams())
	wantAPIError(t, err, "431") // neither ids, type nor enddate

	p := cs.Alert.NewArchiveAlertsParams()
	p.SetIds([]string{"cafe9999-0000-4000-8000-000000000000"})
	_, err = cs.Alert.ArchiveAlerts(p)
	wantAPIError(t, err, "431") // unknown id

	p.SetIds([]string{id})
	if _, err := cs.Alert.ArchiveAlerts(p); err != nil {
		t.Fatal(err)
	}
	_, err = cs.Alert.ArchiveAlerts(p)
	wantAPIError(t, err, "530") // already archived: fewer matches than ids

	p = cs.Alert.NewArchiveAlertsParams()
	p.SetStartdate("2020-01-01")
	_, err = cs.Alert.ArchiveAlerts(p)
	wantAPIError(t, err, "431") // startdate without enddate
}

func TestListAlertsFilters(t *testing.T) {
	_, cs := newTestServer(t)
	generate(t, cs, 4000, "CKS.DRIFT", "cluster c1 drifted")
	generate(t, cs, 4001, "OTHER", "something else")

	p := cs.Alert.NewListAlertsParams()
	p.SetName("cks.drift")
	l, err := cs.Alert.ListAlerts(p)
	if err != nil || l.Count != 1 || l.Alerts[0].Name != "CKS.DRIFT" {
		t.Fatalf("by name: %+v, %v", l, err)
	}
	a := l.Alerts[0]
	if !cloudstack.IsID(a.Id) || a.Type != 4000 || len(a.Sent) != len("2024-06-05T07:51:22+0000") {
		t.Errorf("alert fields: %+v", a)
	}
	p = cs.Alert.NewListAlertsParams()
	p.SetKeyword("C1 DRIFT")
	if l, _ := cs.Alert.ListAlerts(p); l.Count != 1 {
		t.Errorf("keyword: %d alerts, want 1", l.Count)
	}
	p = cs.Alert.NewListAlertsParams()
	p.SetType("4001")
	if l, _ := cs.Alert.ListAlerts(p); l.Count != 1 || l.Alerts[0].Type != 4001 {
		t.Errorf("type: %+v", l)
	}
}
