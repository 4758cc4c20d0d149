package cloudstacktest

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/go-cmp/cmp"
)

func TestJobsDoneAtFirstQueryByDefault(t *testing.T) {
	s := NewServer()
	defer s.Close()
	sync := cloudstack.NewClient(s.Endpoint(), s.APIKey(), s.SecretKey(), false)

	r, err := sync.Alert.GenerateAlert(sync.Alert.NewGenerateAlertParams("d", "X", 4000))
	if err != nil || r.JobID == "" {
		t.Fatalf("GenerateAlert without polling: %+v, %v", r, err)
	}
	q, err := sync.Asyncjob.QueryAsyncJobResult(sync.Asyncjob.NewQueryAsyncJobResultParams(r.JobID))
	if err != nil {
		t.Fatal(err)
	}
	if q.Jobstatus != 1 || q.Jobresulttype != "object" || q.JobID != r.JobID {
		t.Errorf("job: %+v", q)
	}
	var res map[string]any
	if err := json.Unmarshal(q.Jobresult, &res); err != nil || res["success"] != true {
		t.Errorf("jobresult %s, want {\"success\":true}", q.Jobresult)
	}

	// A job that fails in execute() reports jobstatus 2 with the error as an object.
	r, err = sync.Alert.GenerateAlert(sync.Alert.NewGenerateAlertParams("d", "not ALERT.CPU", 1))
	if err != nil {
		t.Fatalf("a job that will fail is still created: %v", err)
	}
	q, err = sync.Asyncjob.QueryAsyncJobResult(sync.Asyncjob.NewQueryAsyncJobResultParams(r.JobID))
	if err != nil {
		t.Fatal(err)
	}
	var jobErr map[string]any
	_ = json.Unmarshal(q.Jobresult, &jobErr)
	want := map[string]any{"errorcode": float64(431), "errortext": "There is a default alert having type 1 and name ALERT.CPU"}
	if q.Jobstatus != 2 || q.Jobresultcode != 530 || cmp.Diff(want, jobErr) != "" {
		t.Errorf("failed job: status %d code %d result %s", q.Jobstatus, q.Jobresultcode, q.Jobresult)
	}

	// Unknown job: asked directly, since the SDK retries failed queries with 500 ms sleeps.
	status, _, body := rawCall(t, s, url.Values{"command": {"queryAsyncJobResult"}, "jobid": {"cafe9999-0000-4000-8000-000000000000"}})
	if status != 431 {
		t.Errorf("unknown job: status %d, want 431: %s", status, body)
	}
}

// TestJobPendingPolls is the one test that pays for the SDK's 1 s sleep between polls.
func TestJobPendingPolls(t *testing.T) {
	s, cs := newTestServer(t)
	s.SetJobPolls(1)
	if _, err := cs.Alert.GenerateAlert(cs.Alert.NewGenerateAlertParams("d", "X", 4000)); err != nil {
		t.Fatal(err)
	}
	if n := s.CallCount("queryAsyncJobResult"); n != 2 {
		t.Errorf("queryAsyncJobResult called %d times, want 2 (one pending, one done)", n)
	}
}
